import { and, eq, inArray, sql, type Placeholder } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { identifiers, users, type UserRow } from '@/db/schema';

/** How an address is compared everywhere: trimmed and lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * The one rule for "who is this email address": the user holding it as a verified email
 * identifier in the account. An unverified, primary-but-unverified or custom identifier
 * proves nothing about who owns an address, so it never matches. Every caller that turns
 * an email into a person (act-as, provisioning, organization members, SCIM, SAML, sign-in
 * links, contact consumers) asks this function, or the prepared form below. It lives on the
 * access floor because act-as (credentials/act-as.ts) needs it; areas import it through
 * server/identifiers/verified-email.ts.
 */
export async function findUserByVerifiedEmail(db: Tx, accountId: string, email: string): Promise<UserRow | null> {
  const [row] = await db
    .select({ user: users })
    .from(identifiers)
    .innerJoin(users, eq(users.id, identifiers.userId))
    .where(verifiedEmailIs(accountId, normalizeEmail(email)))
    .limit(1);
  return row?.user ?? null;
}

/** The same rule for many addresses at once (a page of contacts): each address found, with its user. */
export async function findUsersByVerifiedEmails(db: Tx, accountId: string, emails: string[]): Promise<Map<string, UserRow>> {
  const values = [...new Set(emails.map(normalizeEmail))];
  if (!values.length) return new Map();
  const rows = await db
    .select({ value: identifiers.value, user: users })
    .from(identifiers)
    .innerJoin(users, eq(users.id, identifiers.userId))
    .where(and(eq(identifiers.accountId, accountId), eq(identifiers.type, 'email'), eq(identifiers.verified, true), inArray(identifiers.value, values)));
  return new Map(rows.map((r) => [r.value, r.user]));
}

/** The condition itself, shared by the plain and the prepared lookup so they cannot drift apart. */
export function verifiedEmailIs(accountId: string | Placeholder, value: string | Placeholder) {
  return and(eq(identifiers.accountId, accountId), eq(identifiers.type, 'email'), eq(identifiers.value, value), eq(identifiers.verified, true));
}

/**
 * The same lookup as a prepared statement (placeholders `accountId` and `value`, the value
 * already normalized), for the per-request act-as path where building the query costs more
 * than running it.
 */
export function prepareVerifiedEmailLookup(db: Db, name: string) {
  return db
    .select({ user: users })
    .from(identifiers)
    .innerJoin(users, eq(users.id, identifiers.userId))
    .where(verifiedEmailIs(sql.placeholder('accountId'), sql.placeholder('value')))
    .limit(1)
    .prepare(name);
}
