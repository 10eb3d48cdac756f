import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { organizations, teams, users } from '@/db/schema';
import { assertOperates, type AccountOperator } from '@/server/accounts/operator';
import { notFound } from '@/server/http/errors';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';

/** The account's organizations and active teams by name, for the console's pickers (budgets, locks); at most 500 of each. */
export async function consoleDirectory(db: Db, accountId: string, by: AccountOperator) {
  assertOperates(by, accountId);
  const [orgs, teamRows] = await Promise.all([
    db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.accountId, accountId)).orderBy(asc(organizations.name)).limit(500),
    db
      .select({ id: teams.id, name: teams.name, organizationId: teams.organizationId })
      .from(teams)
      .where(and(eq(teams.accountId, accountId), eq(teams.status, 'active')))
      .orderBy(asc(teams.name))
      .limit(500),
  ]);
  return { ok: true as const, organizations: orgs, teams: teamRows };
}

/** The user an address names in the account (a verified identifier, the one rule), or 404 naming the field. */
export async function userIdByEmail(db: Db, accountId: string, email: string): Promise<string> {
  const user = await findUserByVerifiedEmail(db, accountId, email);
  if (!user) throw notFound('User');
  return user.id;
}

/** Names for the scopes budgets and locks point at: organizations, teams and users of the account (others are left out). */
export async function scopeNames(db: Db, accountId: string, refs: Array<{ scope: string; scopeId: string }>) {
  const ids = (scope: string) => [...new Set(refs.filter((r) => r.scope === scope).map((r) => r.scopeId))];
  const [o, t, u] = await Promise.all([
    ids('organization').length ? db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(and(eq(organizations.accountId, accountId), inArray(organizations.id, ids('organization')))) : [],
    ids('team').length ? db.select({ id: teams.id, name: teams.name }).from(teams).where(and(eq(teams.accountId, accountId), inArray(teams.id, ids('team')))) : [],
    ids('user').length ? db.select({ id: users.id, name: users.email }).from(users).where(and(eq(users.accountId, accountId), inArray(users.id, ids('user')))) : [],
  ]);
  return Object.fromEntries([...o, ...t, ...u].map((r) => [r.id, r.name])) as Record<string, string>;
}
