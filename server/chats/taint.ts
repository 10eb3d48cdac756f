import { and, eq, notInArray } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { chatMessages, type TaintSource } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { memoriesForRun } from '@/server/agent/runtime/memories';
import { mergeTaint } from '@/server/tasks/taint';
import type { ChatRef } from './tools/registry';

/*
 * A chat's turn reads every message of the chat: when anyone but its owner and the assistant
 * wrote one (a contact's email, a stranger's text), or a memory a tainted run saved is among
 * the owner's, the turn is tainted (tasks/taint.ts). The chat keeps no flag of its own: a task
 * the turn opens is where taint matters, and it is asked when one is opened.
 */
export async function chatTaint(db: Tx, actor: UserActor, chat: ChatRef): Promise<TaintSource[]> {
  const others = await db
    .selectDistinct({ from: chatMessages.from, platform: chatMessages.platform, role: chatMessages.role })
    .from(chatMessages)
    .where(and(eq(chatMessages.chatId, chat.id), notInArray(chatMessages.role, ['user', 'assistant'])))
    .limit(20);
  const fromMessages: TaintSource[] = others.map((m) => ({
    kind: m.platform === 'email' ? 'email' : 'message',
    ref: m.from ?? `someone on ${m.platform ?? 'the chat'}`,
  }));
  const { taint } = await memoriesForRun(db as unknown as Db, actor);
  return mergeTaint(fromMessages, taint);
}
