import { beforeAll, describe, expect, it } from 'vitest';
import { createServiceKey } from '@/server/prompts/service-keys';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Every list query reads the big tables through an index that serves its filter and order: the
 * statements a list request runs are captured as they go to PostgreSQL, then explained with
 * the same parameters over tables seeded with enough rows (and analyzed) that a missing index
 * shows as a sequential scan. A plan fails on any Seq Scan over memories, contacts, users or
 * traces, on an index scan of them without an index condition (a full walk of an index), or
 * when the index named for the case is not in the plan.
 */

const app = useTestServer();
const BIG = new Set(['memories', 'contacts', 'users', 'traces']);
const ROWS = 20_000;

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Index Cond'?: string; Plans?: PlanNode[] };

function nodes(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(nodes)];
}

/** The statements one HTTP request ran, as sent to the pool (text and parameters). */
async function statementsOf(run: () => Promise<{ status: number }>) {
  const pool = app().database.pool as unknown as { query: (...args: unknown[]) => Promise<unknown> };
  const original = pool.query;
  const seen: Array<{ text: string; values: unknown[] }> = [];
  pool.query = function (this: unknown, q: unknown, values?: unknown) {
    if (q && typeof q === 'object' && 'text' in q) seen.push({ text: (q as { text: string }).text, values: ((values ?? (q as { values?: unknown[] }).values) as unknown[]) ?? [] });
    return original.apply(this, [q, values].filter((x) => x !== undefined));
  };
  try {
    const res = await run();
    expect(res.status).toBe(200);
  } finally {
    pool.query = original;
  }
  return seen;
}

/** Every plan node of every statement that reads one of the big tables. */
async function plansOf(statements: Array<{ text: string; values: unknown[] }>) {
  const all: PlanNode[] = [];
  for (const s of statements) {
    if (![...BIG].some((t) => s.text.includes(`"${t}"`))) continue;
    if (!/^\s*(select|with)\b/i.test(s.text)) continue;
    const { rows } = await app().database.pool.query({ text: `EXPLAIN (FORMAT JSON) ${s.text}`, values: s.values });
    all.push(...nodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan));
  }
  return all;
}

async function expectIndexed(path: string, opts: { key: string; as?: string }, uses: string[]) {
  const plan = await plansOf(await statementsOf(() => call(app(), path, opts)));
  const big = plan.filter((n) => n['Relation Name'] && BIG.has(n['Relation Name']));
  const seq = big.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']);
  const unbounded = big.filter((n) => /Index (Only )?Scan/.test(n['Node Type']) && !n['Index Cond']).map((n) => n['Index Name']);
  expect({ path, seq, unbounded }).toEqual({ path, seq: [], unbounded: [] });
  const used = new Set(plan.map((n) => n['Index Name']).filter(Boolean));
  for (const index of uses) expect(used.has(index), `${path} reads through ${index} (used: ${[...used].join(', ')})`).toBe(true);
}

let user: { id: string; email: string; teamId: string; key: string };
let orgAdmin: { key: string; orgId: string };
let tenant: { id: string; key: string };

beforeAll(async () => {
  const pool = app().database.pool;
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  user = { ...u, key: await userKey(app(), acct, u.id) };
  const other = await newUser(app(), acct, { teamId: u.teamId });
  const bigAcct = await newAccount(app(), 'Big');
  const org = await call(app(), '/organizations', { key: bigAcct.key, body: { name: 'Big' } });
  orgAdmin = { key: bigAcct.key, orgId: org.body.organization.id };
  const { serviceKey } = await createServiceKey(app().database.db, acct.accountId);
  tenant = { id: acct.accountId, key: serviceKey };
  const words = `(ARRAY['budget','travel','dinner','contract','review','launch','coffee','report'])`;
  // The user's memories (one in seven the team's), a teammate's, and another account's.
  await pool.query(
    `INSERT INTO memories (id, account_id, user_id, tags, content, scope, team_id, created_at)
     SELECT md5('m' || i)::text, $1, CASE WHEN i % 10 = 0 THEN $3 ELSE $2 END,
       jsonb_build_array((ARRAY['general','general','profile','assistant-style'])[1 + i % 4]),
       'Note ' || i || ' ' || ${words}[1 + i % 8] || ' with ' || CASE WHEN i % 300 = 7 THEN 'Lovelace' ELSE 'someone' END,
       CASE WHEN i % 7 = 3 THEN 'team' ELSE 'user' END, CASE WHEN i % 7 = 3 THEN $4 END,
       now() - i * interval '1 minute'
     FROM generate_series(1, $5::int) i`,
    [acct.accountId, u.id, other.id, u.teamId, ROWS],
  );
  await pool.query(
    `INSERT INTO contacts (id, account_id, user_id, name, email, emails, status, tags, source, created_at)
     SELECT md5('c' || i)::text, $1, $2, 'Person ' || i || CASE WHEN i % 300 = 7 THEN ' Lovelace' ELSE '' END, 'p' || i || '@example.com',
       jsonb_build_array(jsonb_build_object('address', 'p' || i || '@example.com', 'primary', true)),
       CASE WHEN i % 10 = 0 THEN 'archived' ELSE 'active' END, CASE WHEN i % 7 = 0 THEN '["vip"]'::jsonb ELSE '[]'::jsonb END,
       '{"type":"imported"}'::jsonb, now() - i * interval '1 minute'
     FROM generate_series(1, $3::int) i`,
    [acct.accountId, u.id, ROWS],
  );
  await pool.query(
    `INSERT INTO users (id, account_id, email, first_name, last_name, organization_id, status, created_at)
     SELECT md5('u' || i)::text, $1, 'u' || i || '@big.example', 'First' || i, CASE WHEN i % 300 = 7 THEN 'Lovelace' ELSE 'Last' || i END, $2,
       CASE WHEN i % 20 = 0 THEN 'suspended' ELSE 'active' END, now() - i * interval '1 minute'
     FROM generate_series(1, $3::int) i`,
    [bigAcct.accountId, orgAdmin.orgId, ROWS],
  );
  await pool.query(
    `INSERT INTO traces (id, account_id, prompt_name, status, model_config, timestamp, created_at)
     SELECT md5('t' || i)::text, $1, CASE WHEN i % 300 = 7 THEN 'lovelace-digest' ELSE 'prompt-' || (i % 40) END, 'completed',
       jsonb_build_object('model', 'model-' || (i % 8), 'provider', 'openai'), 0, now() - i * interval '1 minute'
     FROM generate_series(1, $2::int) i`,
    [acct.accountId, ROWS],
  );
  await pool.query('VACUUM ANALYZE memories, contacts, users, traces');
});

describe('list queries read through their indexes', () => {
  it('memories: own and team parts, a tag, a search, a deep page', async () => {
    const as = { key: user.key };
    await expectIndexed('/memories', as, ['memories_user_list', 'memories_team_list']);
    await expectIndexed('/memories?tags=profile', as, ['memories_user_list', 'memories_team_list']);
    await expectIndexed('/memories?scope=team', as, ['memories_user_list', 'memories_team_list']);
    await expectIndexed('/memories?search=lovelace', as, ['memories_owner_trgm']);
    await expectIndexed('/memories?page=50', as, ['memories_user_list', 'memories_team_list']);
  });

  it('contacts: unfiltered, by status, by tag, search and q, a deep page', async () => {
    const as = { key: user.key };
    await expectIndexed('/contacts', as, ['contacts_user_list']);
    await expectIndexed('/contacts?status=archived', as, ['contacts_user_status_list']);
    await expectIndexed('/contacts?search=lovelace', as, ['contacts_search_trgm']);
    await expectIndexed('/contacts?q=lovelace', as, ['contacts_search_trgm']);
    await expectIndexed('/contacts?page=50', as, ['contacts_user_list']);
  });

  it('users and organization members: unfiltered, by status, search, a deep page', async () => {
    const as = { key: orgAdmin.key };
    await expectIndexed('/users', as, ['users_account_list']);
    await expectIndexed('/users?status=suspended', as, ['users_account_status_list']);
    await expectIndexed('/users?search=lovelace', as, ['users_search_trgm']);
    await expectIndexed(`/users?organizationId=${orgAdmin.orgId}`, as, ['users_organization_list']);
    await expectIndexed('/users?page=50', as, ['users_account_list']);
    await expectIndexed(`/organizations/${orgAdmin.orgId}/members`, as, ['users_organization_list']);
    await expectIndexed(`/organizations/${orgAdmin.orgId}/members?search=lovelace`, as, ['users_search_trgm']);
  });

  it('traces: unfiltered, search, a deep page', async () => {
    const as = { key: tenant.key };
    await expectIndexed(`/tenants/${tenant.id}/traces`, as, ['traces_account_list']);
    await expectIndexed(`/tenants/${tenant.id}/traces?search=lovelace`, as, ['traces_search_trgm']);
    await expectIndexed(`/tenants/${tenant.id}/traces?page=50`, as, ['traces_account_list']);
  });
});
