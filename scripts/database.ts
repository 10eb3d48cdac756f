import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, withDatabase } from '../db/embedded';

const DATA_DIR = path.resolve(process.env.STEWARD_DATA_DIR ?? '.data');
const PG_DIR = path.join(DATA_DIR, 'postgres');
/** Where a running `npm start` says which port its embedded server listens on. */
const URL_FILE = path.join(DATA_DIR, 'postgres.url');
const DB_NAME = 'steward';

export type Selected = { url: string; embedded: boolean; stop: () => Promise<void> };

async function reachable(url: string) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * The database `npm start` and the admin CLI share: DATABASE_URL when set, else the
 * embedded server under .data/postgres (reusing one that `npm start` already runs).
 */
export async function selectDatabase(log: (m: string) => void = () => {}): Promise<Selected> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, embedded: false, stop: async () => {} };
  if (existsSync(URL_FILE)) {
    const url = readFileSync(URL_FILE, 'utf8').trim();
    if (await reachable(url)) return { url, embedded: true, stop: async () => {} };
  }
  mkdirSync(DATA_DIR, { recursive: true });
  // The embedded server runs as the postgres user when we are root: it must be able to enter the
  // data folder (an older master-key step created it 0700). The master key file stays 0600.
  if (process.getuid?.() === 0) chmodSync(DATA_DIR, 0o755);
  log(`starting embedded PostgreSQL in ${PG_DIR}`);
  const server = await startEmbeddedPostgres({ dir: PG_DIR, persistent: true });
  const admin = new pg.Client(server.url);
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
  if (!rowCount) await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();
  const url = withDatabase(server.url, DB_NAME);
  writeFileSync(URL_FILE, url);
  return {
    url,
    embedded: true,
    stop: async () => {
      rmSync(URL_FILE, { force: true });
      await server.stop();
    },
  };
}
