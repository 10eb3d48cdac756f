import type { Db } from '@/db/client';
import type { UserRow } from '@/db/schema';
import { unauthorized } from '@/server/http/errors';
import { normalizeEmail, prepareVerifiedEmailLookup } from '../verified-email';

/** The lookup as a prepared statement, built once per database handle (cheaper than building the query per request). */
const prepared = new WeakMap<Db, ReturnType<typeof prepare>>();
const prepare = (db: Db) => prepareVerifiedEmailLookup(db, 'auth_user_by_verified_email');

/**
 * X-User-Email acts as the user holding that address as a verified email identifier, the rule
 * every "who is this email" question follows: an unverified address, even one a user made
 * primary before that needed proof, or a custom identifier shaped like an address, names nobody.
 */
export async function userByEmail(db: Db, accountId: string, email: string): Promise<UserRow | null> {
  let lookup = prepared.get(db);
  if (!lookup) prepared.set(db, (lookup = prepare(db)));
  const [row] = await lookup.execute({ accountId, value: normalizeEmail(email) });
  return row?.user ?? null;
}

/** The user an account-wide credential acts as through X-User-Email; 401 when the account has no such user. */
export async function actAs(db: Db, accountId: string, email: string): Promise<UserRow> {
  const user = await userByEmail(db, accountId, email);
  if (!user) throw unauthorized('X-User-Email matches no user in this account');
  return user;
}
