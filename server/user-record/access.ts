import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { users, type UserRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { notFound } from '@/server/http/errors';

/**
 * Whether the caller may see this user: account-wide credentials see every user of
 * the account; organization keys and organization admins their organization's users;
 * a user only themself.
 */
export function canSeeUser(actor: Actor, user: UserRow): boolean {
  if (user.accountId !== actor.accountId) return false;
  if (isAccountWide(actor)) return true;
  if (actor.user?.id === user.id) return true;
  const org = administeredOrganization(actor);
  return org !== null && user.organizationId === org;
}

/** The user, or 404 when it does not exist or the caller may not see it. */
export async function visibleUser(db: Db, actor: Actor, userId: string): Promise<UserRow> {
  const [user] = await db
    .select()
    .from(users)
    .where(and(eq(users.id, userId), eq(users.accountId, actor.accountId)))
    .limit(1);
  if (!user || !canSeeUser(actor, user)) throw notFound('User');
  return user;
}
