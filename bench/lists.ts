/**
 * The lists section of `npm run bench` (issue 21), written under `lists` in bench/results.json.
 * One throwaway PostgreSQL with two databases, one Steward production server on each
 * (scripts/start.ts, API only: STEWARD_PAGES=off): the lists at 10,000 rows and at their large
 * size, measured side by side. Rows are seeded with SQL (bench/lists-seed.ts), never through the API:
 *
 * - memories and contacts: one user with 10,000 / 1,000,000 of each;
 * - users and members: one account whose one organization has 10,000 / 100,000 users;
 * - traces: one tenant with 10,000 / 1,000,000 traces.
 *
 * Each list is read one request at a time, the two sizes in turn (after warm-up requests that
 * are not counted), and the p50 latency of each reported: the first page of 20 unfiltered
 * (`p50At10kMs`, `p50At1mMs`; `p50At100kMs` for users and members), with a common filter
 * (`filtered`: a tag, `status`), with a text search (`search`, `q`: one surname of 400, about
 * 0.25 % of the rows; traces: one prompt name of 40), and page 50 asked for directly (`page50`).
 * `walk` reads pages 1 to 200 in order at the large size: each page starts where the previous
 * one ended (keyset). Figures are client-side (fetch from this process), sequential: latencies,
 * not throughput. Each answer's status and total are checked.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase, withDatabase } from '../db/embedded';
import { applyMigrations } from '../db/migrate';
import { createAccount } from '../server/accounts/service';
import { createServiceKey } from '../server/prompts/service-keys';
import { grow, SEARCH_PROMPT, SEARCH_SURNAME, seedContacts, seedMemories, seedTraces, seedUsers, withTrigramIndexesRebuilt } from './lists-seed';
import { start, stop, waitReady } from './processes';

const SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 40);
const WARMUP = 5;
const WALK_PAGES = 200;




type Get = { path: string; key: string; as?: string };

async function get(base: string, g: Get): Promise<{ ms: number; body: any }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${g.key}` };
  if (g.as) headers['X-User-Email'] = g.as;
  const t = performance.now();
  const res = await fetch(base + g.path, { headers });
  const body = await res.json();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`GET ${g.path}: ${res.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

const round = (n: number) => Number(n.toFixed(1));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

async function api(base: string, p: string, key: string, opts: { method?: string; body?: unknown; as?: string } = {}) {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  if (opts.as) headers['X-User-Email'] = opts.as;
  const res = await fetch(base + p, { method: opts.method ?? (opts.body ? 'POST' : 'GET'), headers, body: opts.body ? JSON.stringify(opts.body) : undefined });
  const body = await res.json();
  if (res.status >= 300) throw new Error(`${opts.method ?? 'POST'} ${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

type Case = { name: string; get: Get; total?: number };
type ListPlan = { name: string; cases: Case[]; walk?: Get };

/** Pages 1..WALK_PAGES in order: p50 of pages 2.. and the last page's own time. */
async function walk(base: string, g: Get) {
  const times: number[] = [];
  const sep = g.path.includes('?') ? '&' : '?';
  let last = 0;
  for (let page = 1; page <= WALK_PAGES; page++) {
    const { ms } = await get(base, { ...g, path: `${g.path}${sep}page=${page}` });
    if (page > 1) times.push(ms);
    last = ms;
  }
  return { pages: WALK_PAGES, p50Ms: round(median(times)), lastPageMs: round(last) };
}

type Fixture = { base: string; main: { apiKey: string; accountId: string }; big: { apiKey: string; accountId: string }; serviceKey: string; email: string; orgId: string; owner: { accountId: string; userId: string; teamId: string | null } };

/** Accounts, keys, the heavy user (provisioned with a team of their own, onboarded) and the organization, made as a deployment would. */
async function fixture(url: string, base: string): Promise<Fixture> {
  const database = connect(url);
  const main = await createAccount(database.db, 'Lists bench');
  const big = await createAccount(database.db, 'Big organization');
  const { serviceKey } = await createServiceKey(database.db, main.accountId);
  await database.close();
  const email = 'heavy@lists.bench';
  const { user, teamId } = await api(base, '/users/provision', main.apiKey, { body: { email } });
  await api(base, '/profile', main.apiKey, { method: 'PATCH', as: email, body: { timezone: 'Europe/Paris' } });
  await api(base, `/users/${user.id}/preferences/scheduling`, main.apiKey, {
    method: 'PUT',
    as: email,
    body: { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } },
  });
  await api(base, '/onboarding/mark-onboarded', main.apiKey, { as: email, body: {} });
  const { organization } = await api(base, '/organizations', big.apiKey, { body: { name: 'Big organization' } });
  return { base, main, big, serviceKey, email, orgId: organization.id, owner: { accountId: main.accountId, userId: user.id, teamId: teamId ?? null } };
}

/** Rows 1..rows (users 1..users) of every list, then what autovacuum does on its own after a bulk load. */
async function seed(url: string, f: Fixture, rows: number, users: number) {
  const t = Date.now();
  const c = new pg.Client(url);
  await c.connect();
  try {
    await withTrigramIndexesRebuilt(c, 'memories', () => grow((a, b) => seedMemories(c, f.owner, a, b), 1, rows));
    await withTrigramIndexesRebuilt(c, 'contacts', () => grow((a, b) => seedContacts(c, f.owner, a, b), 1, rows));
    await grow((a, b) => seedUsers(c, f.big.accountId, f.orgId, a, b), 1, users);
    await withTrigramIndexesRebuilt(c, 'traces', () => grow((a, b) => seedTraces(c, f.main.accountId, a, b), 1, rows));
    await c.query('VACUUM ANALYZE');
  } finally {
    await c.end();
  }
  return Math.round((Date.now() - t) / 1000);
}

/** The requests of each list, for one database's fixture; `total` is what the seed's proportions give. */
function plans(f: Fixture, rows: number, users: number): ListPlan[] {
  const as = { key: f.main.apiKey, as: f.email };
  const tenant = `/tenants/${f.main.accountId}/traces`;
  const members = `/organizations/${f.orgId}/members`;
  return [
    {
      name: 'memories',
      cases: [
        { name: 'unfiltered', get: { path: '/memories?perPage=20', ...as }, total: rows },
        { name: 'filtered', get: { path: '/memories?perPage=20&tags=profile', ...as }, total: rows / 5 },
        { name: 'search', get: { path: `/memories?perPage=20&search=${SEARCH_SURNAME}`, ...as } },
        { name: 'page50', get: { path: '/memories?perPage=20&page=50', ...as }, total: rows },
      ],
      walk: { path: '/memories?perPage=20', ...as },
    },
    {
      name: 'contacts',
      cases: [
        { name: 'unfiltered', get: { path: '/contacts?perPage=20', ...as }, total: rows },
        { name: 'filtered', get: { path: '/contacts?perPage=20&status=active', ...as }, total: (rows * 9) / 10 },
        { name: 'search', get: { path: `/contacts?perPage=20&search=${SEARCH_SURNAME}`, ...as } },
        { name: 'q', get: { path: `/contacts?perPage=20&q=${SEARCH_SURNAME}`, ...as } },
        { name: 'page50', get: { path: '/contacts?perPage=20&page=50', ...as }, total: rows },
      ],
      walk: { path: '/contacts?perPage=20', ...as },
    },
    {
      name: 'users',
      cases: [
        { name: 'unfiltered', get: { path: '/users?perPage=20', key: f.big.apiKey }, total: users },
        { name: 'filtered', get: { path: '/users?perPage=20&status=active', key: f.big.apiKey }, total: (users * 19) / 20 },
        { name: 'search', get: { path: `/users?perPage=20&search=${SEARCH_SURNAME}`, key: f.big.apiKey } },
        { name: 'page50', get: { path: '/users?perPage=20&page=50', key: f.big.apiKey }, total: users },
      ],
    },
    {
      name: 'members',
      cases: [
        { name: 'unfiltered', get: { path: `${members}?perPage=20`, key: f.big.apiKey }, total: users },
        { name: 'search', get: { path: `${members}?perPage=20&search=${SEARCH_SURNAME}`, key: f.big.apiKey } },
        { name: 'page50', get: { path: `${members}?perPage=20&page=50`, key: f.big.apiKey }, total: users },
      ],
    },
    {
      name: 'traces',
      cases: [
        { name: 'unfiltered', get: { path: `${tenant}?per_page=20`, key: f.serviceKey } },
        { name: 'search', get: { path: `${tenant}?per_page=20&search=${SEARCH_PROMPT}`, key: f.serviceKey } },
        { name: 'page50', get: { path: `${tenant}?per_page=20&page=50`, key: f.serviceKey } },
      ],
      walk: { path: `${tenant}?per_page=20`, key: f.serviceKey },
    },
  ];
}

/**
 * p50 of each case at both sizes, the two asked in turn (small, large, small, ...), so both
 * see the same machine load; each answer's status and total are checked.
 */
async function measurePair(small: { base: string; plan: Case }, large: { base: string; plan: Case }) {
  const check = (c: Case, body: any) => {
    if (c.total !== undefined && body.total !== c.total) throw new Error(`${c.get.path}: total ${body.total}, expected ${c.total}`);
  };
  for (let i = 0; i < WARMUP; i++) {
    check(small.plan, (await get(small.base, small.plan.get)).body);
    check(large.plan, (await get(large.base, large.plan.get)).body);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    a.push((await get(small.base, small.plan.get)).ms);
    b.push((await get(large.base, large.plan.get)).ms);
  }
  return [round(median(a)), round(median(b))];
}

export async function bench() {
  const startedAt = Date.now();
  const SMALL = 10_000;
  const LARGE = { rows: 1_000_000, users: 100_000 };
  // One PostgreSQL, two databases: the lists at 10,000 rows and at their large size, each with
  // its own Steward server, so the two are measured side by side.
  const pgServer = await startThrowawayDatabase('lists_large');
  const admin = new pg.Client(withDatabase(pgServer.url, 'postgres'));
  await admin.connect();
  await admin.query('CREATE DATABASE lists_small');
  await admin.end();
  const urls = { small: withDatabase(pgServer.url, 'lists_small'), large: pgServer.url };
  await applyMigrations(urls.small);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-lists-'));
  const servers: ChildProcess[] = [];
  try {
    const bases: Record<'small' | 'large', string> = { small: '', large: '' };
    for (const size of ['small', 'large'] as const) {
      const port = await freePort();
      servers.push(
        start('scripts/start.ts', {
          DATABASE_URL: urls[size],
          PORT: String(port),
          HOST: '127.0.0.1',
          STEWARD_PAGES: 'off',
          STEWARD_DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          RATE_LIMIT_READS_PER_MINUTE: '1000000000',
          RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
          NEXT_TELEMETRY_DISABLED: '1',
        }),
      );
      bases[size] = `http://127.0.0.1:${port}/api`;
      await waitReady(`${bases[size]}/openapi.json`);
    }
    const fixtures = { small: await fixture(urls.small, bases.small), large: await fixture(urls.large, bases.large) };
    const seedSeconds = { small: await seed(urls.small, fixtures.small, SMALL, SMALL), large: await seed(urls.large, fixtures.large, LARGE.rows, LARGE.users) };
    const smallPlans = plans(fixtures.small, SMALL, SMALL);
    const largePlans = plans(fixtures.large, LARGE.rows, LARGE.users);

    const out: Record<string, unknown> = {
      rows: { small: SMALL, large: LARGE.rows, usersLarge: LARGE.users, searchMatches: '1 surname of 400 (about 0.25 %); traces: 1 prompt name of 40' },
      samplesPerCase: SAMPLES,
      targets: { firstPageP50Ms: 20, firstPageGrowthMax: 1.5, searchP50Ms: 50 },
    };
    const misses: string[] = [];
    for (const [i, list] of largePlans.entries()) {
      const bigKey = list.name === 'users' || list.name === 'members' ? 'p50At100kMs' : 'p50At1mMs';
      const entry: Record<string, unknown> = {};
      for (const [j, c] of list.cases.entries()) {
        const [s, b] = await measurePair({ base: bases.small, plan: smallPlans[i].cases[j] }, { base: bases.large, plan: c });
        const figure = { p50At10kMs: s, [bigKey]: b };
        if (c.name === 'unfiltered') Object.assign(entry, figure);
        else entry[c.name] = figure;
        const search = c.name === 'search' || c.name === 'q';
        if (search ? b > 50 : c.name !== 'page50' && (b > 20 || b > 1.5 * s)) misses.push(`${list.name}.${c.name}`);
      }
      if (list.walk) entry.walk = await walk(bases.large, list.walk);
      out[list.name] = entry;
    }
    // The fixed cost of an authenticated request on the same server, for scale: GET /me as the heavy user.
    const me = (await measurePair({ base: bases.small, plan: { name: 'me', get: { path: '/me', key: fixtures.small.main.apiKey, as: fixtures.small.email } } }, { base: bases.large, plan: { name: 'me', get: { path: '/me', key: fixtures.large.main.apiKey, as: fixtures.large.email } } }))[1];
    out.reference = { meAsUserP50Ms: me };
    out.targetsMet = misses.length === 0;
    if (misses.length) out.targetsMissed = misses;
    out.seedSeconds = seedSeconds;
    out.sectionSeconds = Math.round((Date.now() - startedAt) / 1000);
    return out;
  } finally {
    for (const s of servers) await stop(s);
    await pgServer.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
