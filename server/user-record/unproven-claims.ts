import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { identifiers, users } from '@/db/schema';
import { conflict } from '@/server/http/errors';
import { normalizeEmail } from '@/server/access/verified-email';

/**
 * Makes an address free for the person who is about to get it as a verified email (a new
 * user, provisioned or created for an organization). Nobody holds it as a verified email
 * (the caller asked findUserByVerifiedEmail first), so any remaining holder only claimed it:
 * unverified claims of any identifier type are released, because a claim nobody proved must
 * not keep the real owner out. What cannot be released is answered 409, never a 500 from the
 * unique indexes: an address that is some user's `email` (primary since before make-primary
 * required verification) or that is held verified as another identifier type.
 */
export async function releaseUnprovenClaims(tx: Tx, accountId: string, email: string): Promise<void> {
  const value = normalizeEmail(email);
  // Users first, identifiers second: a concurrent first call committing in between shows up
  // in the second read as a verified holder, never as a bare primary address.
  const [named] = await tx.select({ id: users.id }).from(users).where(and(eq(users.accountId, accountId), eq(users.email, value))).limit(1);
  const held = await tx
    .select({ id: identifiers.id, verified: identifiers.verified, type: identifiers.type })
    .from(identifiers)
    .where(and(eq(identifiers.accountId, accountId), eq(identifiers.value, value)));
  // A verified holder committed since the caller looked: the unique indexes refuse the insert,
  // and callers that retry find that person.
  if (held.some((h) => h.type === 'email' && h.verified)) return;
  if (named) throw conflict(`email: ${value} is another user’s primary address without proof of ownership; remove it with an account-wide credential first`);
  const proven = held.find((h) => h.verified);
  if (proven) throw conflict(`email: ${value} is held as a verified ${proven.type} identifier, which does not name a person by email`);
  if (held.length) await tx.delete(identifiers).where(inArray(identifiers.id, held.map((h) => h.id)));
}
