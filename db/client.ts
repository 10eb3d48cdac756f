import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema';

export type Db = NodePgDatabase<typeof schema>;
/** A transaction or the database itself: what services that may run inside a transaction take. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;
export type Database = { db: Db; pool: pg.Pool; close: () => Promise<void> };

export function connect(url: string, opts: { max?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 20 });
  // An idle client's error (for example the server restarting) must not crash the process.
  pool.on('error', () => {});
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}

let shared: Database | undefined;

/** The process-wide database selected by DATABASE_URL (set by scripts/start.ts for the embedded server). */
export function sharedDatabase(): Database {
  if (!shared) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set');
    shared = connect(url);
  }
  return shared;
}
