import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atOnce } from '@/db/at-once';
import type { Database } from '@/db/client';
import { createTestDatabase } from '../helpers/database';

/*
 * Reads at once (db/at-once.ts) on real PostgreSQL: together on the pool, one after another on a
 * transaction's one connection, where node-postgres would only have queued them.
 */
let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => ({ database, drop } = await createTestDatabase()));
afterAll(() => drop());

/** A read that says which connection ran it, and when it began and ended among the others. */
function probe(db: Parameters<typeof atOnce>[0], name: string, log: string[]) {
  return async () => {
    log.push(`${name} begins`);
    const { rows } = await db.execute<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`);
    log.push(`${name} ends`);
    return { name, pid: rows[0]!.pid };
  };
}

describe('atOnce', () => {
  it('on the pool sends every read before any answers, each on its own connection, and answers in the order given', async () => {
    const log: string[] = [];
    const [a, b, c] = await atOnce(database.db, [probe(database.db, 'a', log), probe(database.db, 'b', log), async () => 3]);
    expect([a.name, b.name, c]).toEqual(['a', 'b', 3]);
    expect(log.slice(0, 2)).toEqual(['a begins', 'b begins']);
    expect(a.pid).not.toBe(b.pid);
  });

  it('on a transaction runs them one after another on its connection, and nothing is queued behind a running statement', async () => {
    const log: string[] = [];
    const queued: number[] = [];
    const [a, b] = await database.db.transaction(async (tx) => {
      // The transaction's client: node-postgres keeps statements sent while one runs in this queue.
      const client = (tx as unknown as { session: { client: { queryQueue?: unknown[]; _queryQueue?: unknown[] } } }).session.client;
      const watch = setInterval(() => queued.push((client._queryQueue ?? client.queryQueue ?? []).length), 5);
      try {
        return await atOnce(tx, [probe(tx, 'a', log), probe(tx, 'b', log)]);
      } finally {
        clearInterval(watch);
      }
    });
    expect(log).toEqual(['a begins', 'a ends', 'b begins', 'b ends']);
    expect(a.pid).toBe(b.pid);
    expect(queued.length).toBeGreaterThan(0);
    expect(Math.max(...queued)).toBe(0);
  });
});
