import type { Db } from '@/db/client';
import { identifiers, users, type UserRow } from '@/db/schema';
import { normalizeEmail } from '@/server/access/verified-email';
import { releaseUnprovenClaims } from './unproven-claims';

/**
 * A new user and their primary, verified email identifier. Callers have found no verified
 * holder of the address; unproven claims on it are released first (409 if one cannot be).
 * Takes a transaction: the user and the identifier exist together or not at all. Provisioning,
 * organization members, SCIM and sign-in all create people through here.
 */
export async function createUserWithEmail(
  tx: Parameters<Parameters<Db['transaction']>[0]>[0],
  input: { id?: string; accountId: string; email: string; firstName?: string; lastName?: string; organizationId: string | null },
): Promise<UserRow> {
  const email = normalizeEmail(input.email);
  await releaseUnprovenClaims(tx, input.accountId, email);
  const [user] = await tx
    .insert(users)
    .values({
      ...(input.id ? { id: input.id } : {}),
      accountId: input.accountId,
      email,
      firstName: input.firstName ?? '',
      lastName: input.lastName ?? '',
      name: [input.firstName, input.lastName].filter(Boolean).join(' ') || null,
      organizationId: input.organizationId,
      organizationRole: 'member',
    })
    .returning();
  await tx.insert(identifiers).values({ accountId: input.accountId, userId: user.id, type: 'email', value: email, verified: true, primary: true });
  return user;
}
