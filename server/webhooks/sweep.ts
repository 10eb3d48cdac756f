import { and, asc, eq, isNull, lt } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { webhookDeliveries } from '@/db/schema/webhooks';

/**
 * Deliveries nobody took up a minute after they were recorded: their handover to the engine was
 * lost (the process died between the commit and the send). The sweep hands them over again; the
 * delivery function's own start marks them taken.
 */
export async function unstartedDeliveries(db: Db, now = new Date(), limit = 500): Promise<string[]> {
  const rows = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'pending'), isNull(webhookDeliveries.startedAt), lt(webhookDeliveries.createdAt, new Date(now.getTime() - 60_000))))
    .orderBy(asc(webhookDeliveries.createdAt))
    .limit(limit);
  return rows.map((r) => r.id);
}
