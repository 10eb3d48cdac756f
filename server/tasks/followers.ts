import type { Tx } from '@/db/client';
import type { TaskRow } from '@/db/schema';
import { findUsersByVerifiedEmails, normalizeEmail } from '@/server/identifiers/verified-email';

/*
 * Followers (spec 2: `followers` emails; spec 4: the task's owner is always a follower). The
 * addresses are stored as given, lower-cased; the owner is not stored, the API shows them first.
 * An address names a person only as a verified email identifier of the account
 * (server/access/verified-email.ts): a follower address that nobody holds verified reaches no one.
 */

/** The followers the API shows: the owner's address first, then the others, each once. */
export function publicFollowers(ownerEmail: string, stored: readonly string[]): string[] {
  const owner = normalizeEmail(ownerEmail);
  return [owner, ...followersToStore(owner, stored)];
}

/** What a task stores: each address lower-cased and once, without the owner's (always a follower, never stored). */
export function followersToStore(ownerEmail: string, given: readonly string[]): string[] {
  const owner = normalizeEmail(ownerEmail);
  return [...new Set(given.map(normalizeEmail))].filter((e) => e !== owner);
}

/** Whether one of these addresses is a verified email of the user, in the account. */
export async function addressesName(tx: Tx, accountId: string, emails: readonly string[], userId: string): Promise<boolean> {
  if (!emails.length) return false;
  const found = await findUsersByVerifiedEmails(tx, accountId, [...emails]);
  for (const user of found.values()) if (user.id === userId) return true;
  return false;
}

/** Whether the user follows the task: its owner, or the user one of its follower addresses names. */
export async function follows(tx: Tx, task: Pick<TaskRow, 'accountId' | 'userId' | 'followers'>, userId: string): Promise<boolean> {
  return task.userId === userId || addressesName(tx, task.accountId, task.followers, userId);
}
