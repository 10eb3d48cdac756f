import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { accounts, type UserRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';

/**
 * The owner, as a channel that proved them acts for them: their own rights as a user, and a
 * credential kind (`channel`) that converses and messages tasks but never decides an approval.
 * Null when the owner cannot act (blocked) or the account is frozen: the message is then kept
 * and nothing runs.
 */
export async function channelActor(tx: Tx, user: UserRow, channel: string): Promise<UserActor | null> {
  if (user.status !== 'active') return null;
  const [account] = await tx.select().from(accounts).where(eq(accounts.id, user.accountId));
  if (!account || account.killSwitch) return null;
  return {
    accountId: user.accountId,
    credential: { kind: 'channel', channel },
    level: 'user',
    organizationId: null,
    user,
    actingVia: null,
    scopes: [],
    account: { killSwitch: account.killSwitch, rateLimitReads: account.rateLimitReads, rateLimitWrites: account.rateLimitWrites },
  };
}
