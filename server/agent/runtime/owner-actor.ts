import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { accounts, users, type TaskRow } from '@/db/schema';
import type { Actor, UserActor } from '@/server/access/actor';

/**
 * The actor a run acts as: the task's owner, with a user-level credential's rights and no more
 * (docs/security.md: an agent acts with exactly its user's rights), so every tool goes through
 * the same service checks as the owner's own requests. Null when the owner can no longer act
 * (blocked, deprovisioned): the run must not act for them.
 */
export async function ownerActor(db: Tx, task: Pick<TaskRow, 'accountId' | 'userId' | 'id'>, runId: string): Promise<UserActor | null> {
  const [row] = await db
    .select({ user: users, account: accounts })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(and(eq(users.id, task.userId), eq(users.accountId, task.accountId)));
  if (!row || row.user.status !== 'active') return null;
  return {
    accountId: task.accountId,
    // Not a key, a certificate or a session: nothing that checks for one of those treats a run as one.
    credential: { kind: 'agent', taskId: task.id, runId },
    level: 'user',
    organizationId: null,
    user: row.user,
    actingVia: null,
    scopes: [],
    account: { killSwitch: row.account.killSwitch, rateLimitReads: row.account.rateLimitReads, rateLimitWrites: row.account.rateLimitWrites },
  };
}

/**
 * The actor a chat turn acts as: the chat's owner with a user-level credential's rights, as a task
 * run acts for its task's owner (null when the owner can no longer act). The agent credential
 * names the chat where a task run names its task: nothing checks it but the memories service,
 * which then files a saved memory under the user's primary assistant.
 */
export const chatOwnerActor = (db: Tx, chat: { id: string; accountId: string; userId: string }, turnId: string): Promise<UserActor | null> =>
  ownerActor(db, { accountId: chat.accountId, userId: chat.userId, id: chat.id }, turnId);

/**
 * Whether the owner's account is frozen (its kill switch engaged). Read fresh at the start of
 * every model step and tool step, so a run stops at its next step boundary once an operator
 * engages the switch, and a run that starts while the account is frozen makes no call at all.
 */
export const accountFrozen = (actor: Pick<UserActor, 'account'>): boolean => actor.account.killSwitch;
