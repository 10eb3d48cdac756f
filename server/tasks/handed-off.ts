import { and, eq, isNull, or } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants, rosterEntries, type TaskRow } from '@/db/schema';
import { invalidFields } from '@/server/http/errors';

/*
 * Who took a task's thread (spec 2: handled_by_other, "another assistant took the thread
 * (handledBy)"): another assistant on the owner's roster, named by id or address, or a person,
 * named by email address. Shown as the task's `handledBy`.
 */

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

export async function handedTo(tx: Tx, task: TaskRow, who: string): Promise<Pick<TaskRow, 'handledByAssistantId' | 'handledByEmail'>> {
  const [assistant] = await tx
    .select({ id: assistants.id })
    .from(rosterEntries)
    .innerJoin(assistants, eq(assistants.id, rosterEntries.assistantId))
    .where(and(eq(rosterEntries.userId, task.userId), eq(assistants.accountId, task.accountId), isNull(assistants.deletedAt), or(eq(assistants.id, who), eq(assistants.email, who.toLowerCase()))))
    .limit(1);
  if (assistant) {
    if (assistant.id === task.assistantId) throw invalidFields([{ field: 'handledBy', problem: 'is the task’s own assistant: name another assistant or a person' }]);
    return { handledByAssistantId: assistant.id, handledByEmail: null };
  }
  if (EMAIL.test(who)) return { handledByAssistantId: null, handledByEmail: who.toLowerCase() };
  throw invalidFields([{ field: 'handledBy', problem: 'must be an assistant on the owner’s roster (id or email) or a person’s email address' }]);
}
