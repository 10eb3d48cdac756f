import { and, count, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { contacts, driveFiles, taskFiles, tasks } from '@/db/schema';
import type { OpenTasks } from '@/server/assistants/open-tasks';
import type { MoveTaskLinks } from '@/server/contacts/task-links';
import type { SharedThroughTask } from '@/server/files/access';
import { ENDED_STATUSES } from './ended';
import { addressesName } from './followers';

/*
 * The tasks area's answers to the questions lower areas ask about tasks (they cannot import this
 * floor): registered at start-up by server/compose/area-hooks.ts.
 */

const open = notInArray(tasks.status, [...ENDED_STATUSES]);

/**
 * Releasing an assistant (assistants/roster.ts): its open tasks are counted, and handed to the
 * user's primary assistant with transfer=primary. A run in flight goes on: each step reads the
 * task's assistant afresh, so the rest of the run works as the new one.
 */
export const openTasks: OpenTasks = {
  async count(tx, assistantId) {
    const [row] = await tx.select({ n: count() }).from(tasks).where(and(eq(tasks.assistantId, assistantId), open));
    return row?.n ?? 0;
  },
  async move(tx, fromAssistantId, toAssistantId) {
    await tx.update(tasks).set({ assistantId: toAssistantId }).where(and(eq(tasks.assistantId, fromAssistantId), open));
  },
};

/**
 * A contact merge (contacts/merge.ts, inside its transaction): the tasks of the contacts' owner
 * that wait on the merged contact now wait on the kept one. Each entry keeps the address it was
 * waiting on; only its contactId changes, in place.
 */
export const moveWaitingOnContacts: MoveTaskLinks = async (tx, fromContactId, toContactId) => {
  const pair = await tx
    .select({ id: contacts.id, accountId: contacts.accountId, userId: contacts.userId })
    .from(contacts)
    .where(inArray(contacts.id, [fromContactId, toContactId]));
  const from = pair.find((c) => c.id === fromContactId);
  const to = pair.find((c) => c.id === toContactId);
  // Contacts of two owners never merge (the service refuses it); nothing crosses owners here either.
  if (!from || !to || from.accountId !== to.accountId || from.userId !== to.userId) return;
  await tx
    .update(tasks)
    .set({
      waitingOnContacts: sql`(
        SELECT coalesce(jsonb_agg(CASE WHEN w.entry->>'contactId' = ${fromContactId}
                                       THEN jsonb_set(w.entry, '{contactId}', to_jsonb(${toContactId}::text))
                                       ELSE w.entry END ORDER BY w.n), '[]'::jsonb)
        FROM jsonb_array_elements(${tasks.waitingOnContacts}) WITH ORDINALITY AS w(entry, n))`,
    })
    .where(
      and(
        eq(tasks.accountId, from.accountId),
        eq(tasks.userId, from.userId),
        sql`${tasks.waitingOnContacts} @> jsonb_build_array(jsonb_build_object('contactId', ${fromContactId}::text))`,
      ),
    );
};

/**
 * Whether a task shares a file with a user (files/access.ts canReadFile, asked for anyone but the
 * file's owner): the file is attached to a task of its owner (task_files, filled by the database
 * from the task's activities) and the user follows that task through a verified email. One
 * indexed lookup finds the tasks, a second resolves their followers.
 */
export const sharedThroughTask: SharedThroughTask = async (db: Db | Tx, userId, fileId) => {
  const sharing = await db
    .select({ accountId: tasks.accountId, followers: tasks.followers })
    .from(taskFiles)
    .innerJoin(tasks, eq(tasks.id, taskFiles.taskId))
    .innerJoin(driveFiles, eq(driveFiles.id, taskFiles.fileId))
    .where(
      and(
        eq(taskFiles.fileId, fileId),
        eq(tasks.accountId, driveFiles.accountId),
        eq(tasks.userId, driveFiles.userId),
        sql`${tasks.followers} <> '[]'::jsonb`,
      ),
    );
  if (!sharing.length) return false;
  const followers = new Set(sharing.flatMap((t) => t.followers));
  return addressesName(db, sharing[0].accountId, [...followers], userId);
};
