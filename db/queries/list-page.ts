import { and, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Tx } from '@/db/client';
import { listCounts } from '@/db/schema';

/*
 * One page of a big list, newest first (created_at, id), in one statement: the rows, the
 * list's exact total and the version of its order all come from the same snapshot.
 *
 * The spec pages by number. Internally a page starts from a remembered boundary (the
 * created_at and id of the last row before it) when one is known for the list's current
 * version, so walking pages costs the same on page 500 as on page 2; a page with no
 * boundary known nearby skips rows from the nearest one through the list's index.
 * It lives under db/ because memories, contacts, users, organizations and prompts all use it.
 */

type Listed = PgTable & { id: PgColumn; createdAt: PgColumn };

export type ListQuery<T extends Listed> = {
  table: T;
  /**
   * Parts whose union is the list (usually one; they may overlap), each read newest first
   * through an index ending in (created_at, id); the filters are in each part.
   */
  parts: SQL[];
  /**
   * The exact number of rows of the list: an expression (list_counts, or a count the indexes
   * serve), `'matches'` to count the rows of the one part while reading them (a search: its
   * matches are all found anyway, through one index scan), or null for none.
   */
  total: SQL | 'matches' | null;
  /** The list's version (countedVersion); with `key`, lets page boundaries be remembered. */
  version: SQL | null;
  /** Names the list and its filters (not the page size): whose boundaries these are. */
  key: string | null;
};

/** The rows of list_counts of these owners and one facet, owners in `minus` subtracted (counted twice otherwise). */
export function countedTotal(list: string, facet: string, plus: string[], minus: string[] = []): SQL {
  const owners = [...plus, ...minus];
  const sign = minus.length ? sql`CASE WHEN ${inArray(listCounts.owner, minus)} THEN -${listCounts.n} ELSE ${listCounts.n} END` : sql`${listCounts.n}`;
  return sql`(SELECT coalesce(sum(${sign}), 0) FROM ${listCounts} WHERE ${and(eq(listCounts.list, list), eq(listCounts.facet, facet), inArray(listCounts.owner, owners))})`;
}

/** Moves whenever a row of these owners enters, leaves or changes a filtered field. */
export function countedVersion(list: string, owners: string[]): SQL {
  return sql`(SELECT coalesce(sum(${listCounts.version}), 0) FROM ${listCounts} WHERE ${and(eq(listCounts.list, list), eq(listCounts.facet, ''), inArray(listCounts.owner, owners))})`;
}

/** Counts the rows the filter selects, through whichever index serves it. */
export function countWhere(table: PgTable, where: SQL | undefined): SQL {
  return sql`(SELECT count(*) FROM ${table}${where ? sql` WHERE ${where}` : sql``})`;
}

type Mark = { createdAt: string; id: string };
type Remembered = { version: string; marks: Map<number, Mark> };

const MAX_LISTS = 2_000;
const MAX_MARKS = 64;
/** Per process; a boundary is used only when the database says the list's version is unchanged. */
const remembered = new Map<string, Remembered>();

function nearestMark(entry: Remembered | undefined, offset: number): { position: number; mark: Mark } | null {
  if (!entry || offset === 0) return null;
  let best: { position: number; mark: Mark } | null = null;
  for (const [position, mark] of entry.marks) {
    if (position <= offset && (!best || position > best.position)) best = { position, mark };
  }
  return best;
}

function remember(key: string, version: string, position: number, mark: Mark) {
  let entry = remembered.get(key);
  remembered.delete(key);
  if (!entry || entry.version !== version) entry = { version, marks: new Map() };
  entry.marks.delete(position);
  entry.marks.set(position, mark);
  if (entry.marks.size > MAX_MARKS) entry.marks.delete(entry.marks.keys().next().value!);
  remembered.set(key, entry);
  if (remembered.size > MAX_LISTS) remembered.delete(remembered.keys().next().value!);
}

/** The ids of the page, after `from` (if any), `skip` rows on, `take` rows; with `total`, when it counts the matches. */
function pageIds<T extends Listed>(q: ListQuery<T>, from: Mark | null, skip: number, take: number): SQL {
  const { id, createdAt } = q.table;
  const seek = (c: SQL | PgColumn, i: SQL | PgColumn) => (from ? sql` AND (${c}, ${i}) < (${from.createdAt}::timestamptz, ${from.id})` : sql``);
  if (q.total === 'matches') {
    // Every match is read once (the count needs them all); the page is taken from them.
    if (q.parts.length !== 1) throw new Error('counting matches needs a list of one part');
    return sql`WITH hits AS MATERIALIZED (SELECT ${id} AS id, ${createdAt} AS created_at FROM ${q.table} WHERE ${q.parts[0]})
      SELECT hits.id, (SELECT count(*) FROM hits) AS total FROM hits WHERE true${seek(sql`hits.created_at`, sql`hits.id`)}
      ORDER BY hits.created_at DESC, hits.id DESC OFFSET ${skip} LIMIT ${take}`;
  }
  if (q.parts.length === 1) {
    return sql`SELECT ${id} AS id FROM ${q.table} WHERE ${q.parts[0]}${seek(createdAt, id)} ORDER BY ${createdAt} DESC, ${id} DESC OFFSET ${skip} LIMIT ${take}`;
  }
  // Each part stops after what the page can need (any row of the page is within the first
  // skip + take of a part holding it); the union drops repeats and is sorted once.
  const parts = q.parts.map(
    (p) => sql`(SELECT ${id} AS id, ${createdAt} AS created_at FROM ${q.table} WHERE ${p}${seek(createdAt, id)} ORDER BY ${createdAt} DESC, ${id} DESC LIMIT ${skip + take})`,
  );
  return sql`SELECT u.id FROM (${sql.join(parts, sql` UNION `)}) u ORDER BY u.created_at DESC, u.id DESC OFFSET ${skip} LIMIT ${take}`;
}

type Extra = { _cursor: string; _total: string | number | null; _version: string | number | null };

async function select<T extends Listed>(db: Tx, q: ListQuery<T>, from: Mark | null, skip: number, take: number) {
  const { id, createdAt } = q.table;
  const columns = {
    ...getTableColumns(q.table),
    _cursor: sql<string>`${createdAt}::text`,
    _total: q.total === 'matches' ? sql`page.total` : (q.total ?? sql`NULL`),
    _version: q.version ?? sql`NULL`,
  };
  // The table is generic here; drizzle's builder types need a concrete one.
  const rows = (await (db as Tx)
    .select(columns as never)
    .from(q.table as never)
    .innerJoin(sql`(${pageIds(q, from, skip, take)}) AS page`, sql`page.id = ${id}`)
    .orderBy(desc(createdAt), desc(id))) as unknown as Array<T['$inferSelect'] & Extra>;
  return rows;
}

/**
 * Rows `offset` to `offset + limit` of the list (plus `lookahead` more, to tell whether a next
 * page exists), and its total.
 */
export async function readPage<T extends Listed>(
  db: Tx,
  q: ListQuery<T>,
  window: { offset: number; limit: number; lookahead?: number },
): Promise<{ rows: Array<T['$inferSelect']>; total: number | null }> {
  const take = window.limit + (window.lookahead ?? 0);
  const key = q.key && q.version ? q.key : null;
  const entry = key ? remembered.get(key) : undefined;
  const near = nearestMark(entry, window.offset);
  let rows = near ? await select(db, q, near.mark, window.offset - near.position, take) : null;
  // A boundary holds only for the version it was read at; otherwise read from the top.
  if (rows && (rows.length === 0 || String(rows[0]._version) !== entry!.version)) {
    remembered.delete(key!);
    rows = null;
  }
  rows ??= await select(db, q, null, window.offset, take);
  const kept = Math.min(rows.length, window.limit);
  if (key && kept > 0 && rows[0]._version !== null) {
    const last = rows[kept - 1] as Extra & { id: string };
    remember(key, String(rows[0]._version), window.offset + kept, { createdAt: last._cursor, id: last.id });
  }
  let total: number | null = rows.length ? Number(rows[0]._total) : null;
  if (!rows.length && q.total) {
    const count = q.total === 'matches' ? countWhere(q.table, q.parts[0]) : q.total;
    const { rows: counted } = await db.execute<{ n: string }>(sql`SELECT ${count} AS n`);
    total = Number(counted[0].n);
  }
  if (q.total === null) total = null;
  return { rows: rows.map(({ _cursor, _total, _version, ...row }) => row as unknown as T['$inferSelect']), total };
}
