import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, phoneLineRequests, phoneLines, users } from '@/db/schema';
import { assertOperates, type AccountOperator } from '@/server/accounts/operator';
import { toPublic } from './phone-lines';

export type PhoneLineRequestStatus = 'pending' | 'fulfilled' | 'dismissed';

/**
 * The account's phone-line requests for whoever answers them (the console, the operator): pending
 * first, then newest, each with who asked, for which assistant, and the number it got. At most 200.
 */
export async function listPhoneLineRequests(db: Db, accountId: string, by: AccountOperator, filter: { status?: PhoneLineRequestStatus } = {}) {
  assertOperates(by, accountId);
  const where: SQL[] = [eq(phoneLineRequests.accountId, accountId)];
  if (filter.status) where.push(eq(phoneLineRequests.status, filter.status));
  const rows = await db
    .select({ r: phoneLineRequests, email: users.email, name: users.name, assistantName: assistants.name, number: phoneLines.number })
    .from(phoneLineRequests)
    .innerJoin(users, eq(users.id, phoneLineRequests.userId))
    .leftJoin(assistants, eq(assistants.id, phoneLineRequests.assistantId))
    .leftJoin(phoneLines, eq(phoneLines.requestId, phoneLineRequests.id))
    .where(and(...where))
    .orderBy(desc(eq(phoneLineRequests.status, 'pending')), desc(phoneLineRequests.createdAt), desc(phoneLineRequests.id))
    .limit(200);
  return {
    ok: true as const,
    requests: rows.map(({ r, email, name, assistantName, number }) => ({
      ...toPublic(r),
      user: { id: r.userId, email, name },
      assistantName: assistantName ?? null,
      number: number ?? null,
    })),
  };
}
