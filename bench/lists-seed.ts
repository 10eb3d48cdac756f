/**
 * Seeds the lists benchmark's rows straight into PostgreSQL with INSERT ... SELECT
 * generate_series (bench/lists.ts): memories and contacts of one user, users of one
 * organization, traces of one tenant. Rows are numbered from 1; `grow` adds rows `from`..`to`,
 * so a list grows from 10,000 to 1,000,000 in the same database. Row i is created at
 * 2024-01-01 + i × 20 s: higher numbers are newer. The counters (list_counts) follow through
 * their triggers, as for rows the API writes.
 *
 * Text is made of a small vocabulary, a first name and a surname: surname j (0..399) is two
 * syllables, so a search for one surname matches about 1 row in 400 (0.25 %).
 */
import type pg from 'pg';

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Dennis', 'Ken', 'Frances', 'John', 'Radia', 'Tim', 'Sophie', 'Linus', 'Guido', 'Anita', 'Leslie', 'Niklaus', 'Hedy'];
const SYLLABLES = ['kar', 'lom', 'mir', 'rav', 'ten', 'vol', 'shi', 'bel', 'dun', 'gar', 'nor', 'pel', 'rik', 'sul', 'tav', 'wen', 'xan', 'yor', 'zul', 'fin'];
const WORDS = [
  'meeting', 'budget', 'travel', 'flight', 'hotel', 'dinner', 'prefers', 'morning', 'calls', 'email', 'contract', 'renewal', 'invoice', 'quarterly',
  'review', 'launch', 'product', 'design', 'feedback', 'schedule', 'weekly', 'sync', 'vegetarian', 'coffee', 'birthday', 'anniversary', 'project',
  'deadline', 'report', 'slides', 'partner', 'supplier', 'shipping', 'address', 'phone', 'office', 'remote', 'holiday', 'conference', 'speaker',
];
const PROMPTS = Array.from({ length: 40 }, (_, i) => ['invoice-reminder', 'meeting-notes', 'travel-planner', 'email-draft', 'contact-enrich', 'task-triage', 'daily-brief', 'expense-check'][i % 8] + (i < 8 ? '' : `-v${Math.floor(i / 8) + 1}`));
const MODELS = ['gpt-4o-mini', 'gpt-4o', 'llama-3.1-70b', 'qwen2.5-32b', 'mistral-large', 'claude-haiku', 'gemma-2-27b', 'phi-4'];

const arr = (xs: string[]) => `(ARRAY[${xs.map((x) => `'${x}'`).join(',')}])`;
/** A surname of row `i` (its number salted), one of 400. */
const surnameOf = (i: string) => `initcap(${arr(SYLLABLES)}[1 + (abs(hashint4(${i})::bigint) % 400) % 20] || ${arr(SYLLABLES)}[1 + (abs(hashint4(${i})::bigint) % 400) / 20])`;
const firstOf = (i: string) => `${arr(FIRST)}[1 + abs(hashint4(${i} + 17)::bigint) % ${FIRST.length}]`;
const sentenceOf = (i: string) => `(SELECT string_agg(${arr(WORDS)}[1 + abs(hashint4(${i} * 16 + k)::bigint) % ${WORDS.length}], ' ') FROM generate_series(1, 8) k)`;
const createdAt = (i: string) => `(timestamptz '2024-01-01 00:00:00+00' + ${i} * interval '20 seconds')`;

/** The surname the search figures look for (it matches about 0.25 % of the rows). */
export const SEARCH_SURNAME = 'Tenkar';
export const SEARCH_PROMPT = 'invoice-reminder';

export type Owner = { accountId: string; userId: string; teamId: string | null };

/** Memories: 60 % general, 20 % profile, 10 % date-memory, 10 % assistant-style; one in five also names a contact; one in seven is the team's. */
export async function seedMemories(c: pg.Client, o: Owner, from: number, to: number) {
  await c.query(
    `INSERT INTO memories (id, account_id, user_id, kind, tags, content, scope, team_id, start_date, source, visibility, metadata, created_at, updated_at)
     SELECT substr(md5('memory' || i), 1, 24), $1, $2, 'unstructured',
       CASE WHEN i % 5 = 1 THEN jsonb_build_array(tag, 'contact:person' || (i % 997) || '@example.com') ELSE jsonb_build_array(tag) END,
       ${firstOf('i')} || ' ' || ${surnameOf('i')} || ': ' || ${sentenceOf('i')},
       CASE WHEN i % 7 = 3 AND $3::text IS NOT NULL THEN 'team' ELSE 'user' END,
       CASE WHEN i % 7 = 3 THEN $3::text END,
       CASE WHEN tag = 'date-memory' THEN ${createdAt('i')} + interval '3 days' END,
       'user', 'all', '{}'::jsonb, ${createdAt('i')}, ${createdAt('i')}
     FROM generate_series($4::int, $5::int) i,
       LATERAL (SELECT (ARRAY['general','general','general','general','general','profile','profile','date-memory','assistant-style','general'])[1 + i % 10] AS tag) t`,
    [o.accountId, o.userId, o.teamId, from, to],
  );
}

/** Contacts: 90 % active, 10 % archived; one in seven tagged vip; imported. */
export async function seedContacts(c: pg.Client, o: Owner, from: number, to: number) {
  await c.query(
    `INSERT INTO contacts (id, account_id, user_id, name, email, emails, company, title, status, scope, tags, source, consumer_email, created_at, updated_at)
     SELECT substr(md5('contact' || i), 1, 24), $1, $2, first || ' ' || last, email,
       jsonb_build_array(jsonb_build_object('address', email, 'type', 'work', 'primary', true, 'source', null)),
       jsonb_build_object('id', null, 'name', 'Company ' || (i % 500), 'slug', null, 'domain', null),
       (ARRAY['CEO','CTO','Engineer','Designer','Sales','Recruiter'])[1 + i % 6],
       CASE WHEN i % 10 = 0 THEN 'archived' ELSE 'active' END, 'user',
       CASE WHEN i % 7 = 0 THEN '["vip"]'::jsonb ELSE '[]'::jsonb END,
       '{"type":"imported","userId":null}'::jsonb, email, ${createdAt('i')}, ${createdAt('i')}
     FROM generate_series($3::int, $4::int) i,
       LATERAL (SELECT ${firstOf('i')} AS first, ${surnameOf('i')} AS last) n,
       LATERAL (SELECT lower(n.first) || '.' || lower(n.last) || '.' || i || '@example.com' AS email) e`,
    [o.accountId, o.userId, from, to],
  );
}

/** Users of one organization: 95 % active, 5 % suspended. */
export async function seedUsers(c: pg.Client, accountId: string, organizationId: string, from: number, to: number) {
  await c.query(
    `INSERT INTO users (id, account_id, email, first_name, last_name, name, organization_id, organization_role, status, created_at, updated_at)
     SELECT substr(md5('user' || i), 1, 24), $1, 'u' || i || '.' || lower(n.last) || '@bigorg.example', n.first, n.last, n.first || ' ' || n.last,
       $2, 'member', CASE WHEN i % 20 = 0 THEN 'suspended' ELSE 'active' END, ${createdAt('i')}, ${createdAt('i')}
     FROM generate_series($3::int, $4::int) i, LATERAL (SELECT ${firstOf('i')} AS first, ${surnameOf('i')} AS last) n`,
    [accountId, organizationId, from, to],
  );
}

/** Traces of one tenant: 40 prompt names (one in 40 is invoice-reminder), 8 models. */
export async function seedTraces(c: pg.Client, tenantId: string, from: number, to: number) {
  await c.query(
    `INSERT INTO traces (id, account_id, prompt_name, status, tags, input_tokens, output_tokens, total_tokens, cost, duration_ms, model_config, messages, timestamp, created_at)
     SELECT substr(md5('trace' || i), 1, 24), $1, ${arr(PROMPTS)}[1 + i % 40], 'completed', '[]'::jsonb,
       500 + i % 300, 100 + i % 50, 600 + i % 300 + i % 50, 0.0004 * (1 + i % 7), 800 + i % 900,
       jsonb_build_object('model', ${arr(MODELS)}[1 + i % 8], 'provider', 'openai', 'temperature', 0.2),
       jsonb_build_array(jsonb_build_object('role', 'user', 'content', ${sentenceOf('i')})),
       (extract(epoch from ${createdAt('i')}) * 1000)::bigint, ${createdAt('i')}
     FROM generate_series($2::int, $3::int) i`,
    [tenantId, from, to],
  );
}

/** Rows in batches, so no one statement holds a million rows in its trigger's transition table. */
export async function grow(seed: (from: number, to: number) => Promise<void>, from: number, to: number, batch = 200_000) {
  for (let start = from; start <= to; start += batch) await seed(start, Math.min(to, start + batch - 1));
}

/**
 * Runs a bulk load with the table's trigram indexes set aside and built again after, from
 * their own definitions: building a GIN index once is far cheaper than growing it row by row,
 * and the index that results is the one the migrations define.
 */
export async function withTrigramIndexesRebuilt(c: pg.Client, table: string, load: () => Promise<void>) {
  const { rows } = await c.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexdef LIKE '%gin_trgm_ops%'`,
    [table],
  );
  for (const r of rows) await c.query(`DROP INDEX "${r.name}"`);
  try {
    await load();
  } finally {
    await c.query(`SET maintenance_work_mem = '256MB'`);
    for (const r of rows) await c.query(r.def);
  }
}
