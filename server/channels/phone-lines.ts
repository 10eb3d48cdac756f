import { and, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { phoneLineRequests } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest } from '@/server/http/errors';
import type { PhoneLineRequestBody } from './contracts';

const toPublic = (r: typeof phoneLineRequests.$inferSelect) => ({
  id: r.id,
  assistant: r.assistantId,
  requestedChannels: r.requestedChannels,
  notes: r.notes,
  status: r.status,
  ...(r.status === 'dismissed' ? { dismissalReason: r.dismissalReason } : {}),
  createdAt: r.createdAt.toISOString(),
});

/** A request for numbers for the user's primary assistant; one pending request per user. */
export async function requestPhoneLine(db: Db, actor: Actor, input: z.infer<typeof PhoneLineRequestBody>) {
  const user = actor.user!;
  if (!user.primaryAssistantId) throw badRequest('The user has no assistant yet: hire one first');
  return db.transaction(async (tx) => {
    const [pending] = await tx.select().from(phoneLineRequests).where(and(eq(phoneLineRequests.userId, user.id), eq(phoneLineRequests.status, 'pending'))).for('update');
    if (pending) throw badRequest('The user already has a pending phone-line request', { request: toPublic(pending) });
    const [r] = await tx
      .insert(phoneLineRequests)
      .values({ accountId: actor.accountId, userId: user.id, assistantId: user.primaryAssistantId!, requestedChannels: input.requestedChannels, notes: input.notes })
      .returning();
    return { ok: true as const, request: toPublic(r) };
  });
}

export async function myPhoneLineRequest(db: Db, actor: Actor) {
  const [r] = await db.select().from(phoneLineRequests).where(eq(phoneLineRequests.userId, actor.user!.id)).orderBy(desc(phoneLineRequests.createdAt)).limit(1);
  return { ok: true as const, request: r ? toPublic(r) : null };
}
