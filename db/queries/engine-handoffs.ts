import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';

/*
 * The engine outbox (engine_handoffs): a task run's or chat turn's row is written with it, and
 * stamped here once the engine took its event, by whoever sent it: the process that queued it
 * (server/compose/engine-handovers.ts for runs, server/chats/turn-queue.ts for turns) or the sweep
 * (inngest/functions/engine-handoff-sweep.ts). Under db/ because those live on different floors.
 */

/** The engine took these rows' events: settled, and no longer claimed by a sweep. */
export async function stampHandoffs(db: Db, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await db.execute(sql`UPDATE engine_handoffs SET sent_at = now(), claimed_until = NULL WHERE id = ANY(${sql.param([...ids])}::text[]) AND sent_at IS NULL`);
}
