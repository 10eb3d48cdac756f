import { and, asc, desc, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { identifiers } from '@/db/schema';

/**
 * A user's verified phone numbers, the primary first, then the oldest: where Steward texts them
 * (a notice, an approval code). Only a verified number is theirs (spec 1).
 */
export async function verifiedPhones(tx: Tx, userId: string): Promise<string[]> {
  const rows = await tx
    .select({ value: identifiers.value })
    .from(identifiers)
    .where(and(eq(identifiers.userId, userId), eq(identifiers.type, 'phone'), eq(identifiers.verified, true)))
    .orderBy(desc(identifiers.primary), asc(identifiers.createdAt));
  return rows.map((r) => r.value);
}
