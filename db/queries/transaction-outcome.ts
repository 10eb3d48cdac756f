import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until another session's transaction (its pg_current_xact_id) has ended and says how.
 * Postgres knows the answer exactly (pg_xact_status), so work that must follow a commit (sending
 * an event for a row the transaction wrote) neither races the commit nor fires after a rollback.
 * The transactions waited on are a request's own and short, and the caller is usually still
 * inside it: the first look is a millisecond later, then the waits double (a task run's start
 * waits on this, so it stays within a few milliseconds of the commit).
 */
export async function transactionOutcome(db: Db, transactionId: string, timeoutMs = 60_000): Promise<'committed' | 'aborted' | 'unknown'> {
  const end = Date.now() + timeoutMs;
  for (let wait = 1; ; wait = Math.min(wait * 2, 200)) {
    await sleep(wait);
    const { rows } = await db.execute<{ status: string | null }>(sql`SELECT pg_xact_status(${transactionId}::xid8) AS status`);
    const status = rows[0]?.status;
    if (status === 'committed' || status === 'aborted') return status;
    if (status !== 'in progress' || Date.now() > end) return 'unknown';
  }
}
