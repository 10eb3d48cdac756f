import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Db } from './client';
import { migrationsFolder } from './migrate';

type Journal = { entries: { tag: string; when: number }[] };

let newest: { tag: string; when: number } | null | undefined;

/** The newest migration this build ships (db/migrations/meta/_journal.json), read once. */
function newestShipped(): { tag: string; when: number } | null {
  if (newest === undefined) {
    const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as Journal;
    newest = journal.entries.reduce<{ tag: string; when: number } | null>((a, e) => (!a || e.when > a.when ? e : a), null);
  }
  return newest;
}

/**
 * Whether the database has every migration this build ships. drizzle's migrator records each
 * applied migration with its journal `when` in drizzle.__drizzle_migrations.created_at, so the
 * newest applied one must be at least the newest shipped one. A process of a newer build behind
 * the same load balancer than the one that migrated reports not ready until migrations ran.
 */
export async function migrationStatus(db: Db): Promise<{ applied: boolean; expected: string | null }> {
  const shipped = newestShipped();
  if (!shipped) return { applied: true, expected: null };
  const rows = await db.execute<{ newest: string | null }>(sql`SELECT max(created_at)::text AS newest FROM drizzle.__drizzle_migrations`);
  const applied = Number(rows.rows[0]?.newest ?? 0) >= shipped.when;
  return { applied, expected: shipped.tag };
}
