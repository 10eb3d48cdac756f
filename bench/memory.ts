/**
 * The memory section of `npm run bench` (issue 44), under `memory` in bench/results.json:
 *
 * - `recallAtContext`: of 200 probe questions, each about one of 10,000 memories of one user and
 *   phrased differently from it (bench/memory-world.ts: other sentences, synonyms, other word
 *   forms, a name for a role and a role for a name), the fraction whose memory is in the context
 *   a run about that question gets: recallForRun (server/agent/runtime/memories.ts), the one
 *   recall of task runs and chat turns, with the question as what the run is about, in the
 *   default budget (STEWARD_MEMORY_CONTEXT_CHARS, 16,000 characters). Full text only (no
 *   embeddings model), whatever the environment says. `byTransform` splits it by how the
 *   question was reworded. With STEWARD_EMBEDDINGS_MODEL set (and its endpoint reachable), every
 *   memory is embedded first and `recallAtContextHybrid` is the same measure with hybrid ranking.
 * - `contextMs`: the time of that recall per probe (p50, p90), at 10,000 memories for the user.
 * - `searchMs`: GET /memories/search's service (searchMemories, 20 results) per probe question,
 *   once the account holds 1,000,000 memories (the user's 10,000 copied to 99 more users with
 *   INSERT … SELECT); `contextMsAt1m` the recall again at that size.
 *
 * BENCH_MEMORY_MILLION=0 leaves out the million (recall and contextMs only, in a minute).
 * In this process against a throwaway PostgreSQL (the measures are of the services, not of HTTP;
 * the API adds its usual fraction of a millisecond). One probe at a time, after warm-up probes.
 */
import { sql } from 'drizzle-orm';
import { connect, type Db } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { users } from '../db/schema';
import type { UserActor } from '../server/access/actor';
import { createAccount } from '../server/accounts/service';
import { recallForRun } from '../server/agent/runtime/memories';
import { embedQueuedMemories } from '../server/memories/embed-queue';
import { embeddingsSettings } from '../server/memories/embeddings';
import { searchMemories } from '../server/memories/search';
import { createUserWithEmail } from '../server/user-record/create';
import { generateWorld, type World } from './memory-world';
import { spread } from './processes';

const MEMORIES = 10_000;
const PROBES = 200;
const OTHER_USERS = 99;
const WARMUP = 20;

const round = (n: number) => Number(n.toFixed(3));

async function seed(db: Db, accountId: string, userId: string, world: World): Promise<string[]> {
  const ids = world.facts.map((_, i) => `bench${String(i).padStart(19, '0')}`);
  // Oldest first: fact 0 was remembered 10,000 hours ago, the last one an hour ago.
  for (let from = 0; from < world.facts.length; from += 2_000) {
    const part = world.facts.slice(from, from + 2_000);
    await db.execute(sql`
      INSERT INTO memories (id, account_id, user_id, tags, content, search_config, source, created_at, updated_at)
      SELECT id, ${accountId}, ${userId}, '["general"]'::jsonb, content, 'english', 'user', now() - make_interval(hours => ${MEMORIES} - n), now() - make_interval(hours => ${MEMORIES} - n)
      FROM unnest(${sql.param(ids.slice(from, from + part.length))}::text[], ${sql.param(part.map((f) => f.content))}::text[], ${sql.param(part.map((_, i) => from + i))}::int[]) AS f(id, content, n)
    `);
  }
  // The user's address book: everyone the memories speak of, titled with their job where they have one.
  await db.execute(sql`
    INSERT INTO contacts (id, account_id, user_id, name, email, title, company)
    SELECT substr(md5(email), 1, 24), ${accountId}, ${userId}, name, email, nullif(title, ''), CASE WHEN company = '' THEN NULL ELSE jsonb_build_object('name', company) END
    FROM unnest(${sql.param(world.people.map((p) => p.name))}::text[], ${sql.param(world.people.map((p) => p.email))}::text[], ${sql.param(world.people.map((p) => p.title ?? ''))}::text[], ${sql.param(world.people.map((p) => p.company ?? ''))}::text[]) AS c(name, email, title, company)
  `);
  // As autovacuum leaves a table that has settled: statistics taken, GIN's pending entries merged into the index.
  await db.execute(sql`VACUUM ANALYZE memories`);
  await db.execute(sql`VACUUM ANALYZE contacts`);
  return ids;
}

/** Recall for every probe: whether its memory was in the context, and how long it took. */
async function measureRecall(db: Db, actor: UserActor, world: World, ids: string[]) {
  const now = new Date();
  for (const p of world.probes.slice(0, WARMUP)) await recallForRun(db, actor, { about: p.question, recent: [] }, now);
  const times: number[] = [];
  const byTransform: Record<string, { probes: number; found: number }> = {};
  let found = 0;
  const missed: string[] = [];
  for (const p of world.probes) {
    const t = performance.now();
    const recalled = await recallForRun(db, actor, { about: p.question, recent: [] }, now);
    times.push(performance.now() - t);
    const hit = recalled.shownIds.includes(ids[p.target]);
    if (hit) found++;
    else if (missed.length < 10) missed.push(`${p.question} → ${world.facts[p.target].content}`);
    for (const k of p.transforms) {
      byTransform[k] ??= { probes: 0, found: 0 };
      byTransform[k].probes++;
      if (hit) byTransform[k].found++;
    }
  }
  return {
    recall: round(found / world.probes.length),
    ms: spread(times),
    byTransform: Object.fromEntries(Object.entries(byTransform).map(([k, v]) => [k, { ...v, recall: round(v.found / v.probes) }])),
    missed,
  };
}

/** A bulk load without the memories' GIN indexes, which are built again after it (as bench/lists-seed.ts does for its trigrams). */
async function withGinRebuilt(db: Db, load: () => Promise<void>) {
  const { rows } = await db.execute<{ name: string; def: string }>(sql`SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'memories' AND indexdef LIKE '%USING gin%'`);
  for (const r of rows) await db.execute(sql.raw(`DROP INDEX "${r.name}"`));
  try {
    await load();
  } finally {
    await db.execute(sql`SET maintenance_work_mem = '256MB'`);
    for (const r of rows) await db.execute(sql.raw(r.def));
  }
}

export async function bench() {
  const pgServer = await startThrowawayDatabase('memory_bench');
  // The pool a serving process has (db/client.ts): recall reads its parts side by side.
  const database = connect(pgServer.url);
  const db = database.db;
  const savedModel = process.env.STEWARD_EMBEDDINGS_MODEL;
  try {
    const { accountId } = await createAccount(db, 'Memory bench');
    const user = await db.transaction((tx) => createUserWithEmail(tx, { accountId, email: 'recall@bench.test', firstName: 'Robin', lastName: 'Vale', organizationId: null }));
    const world = generateWorld(MEMORIES, PROBES);
    const ids = await seed(db, accountId, user.id, world);
    const actor: UserActor = {
      accountId,
      credential: { kind: 'api_key', keyId: 'bench' },
      level: 'user',
      organizationId: null,
      user,
      actingVia: 'user_key',
      scopes: [],
      account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null },
    };

    // Full text only, whatever the environment configures.
    const embeddings = embeddingsSettings();
    delete process.env.STEWARD_EMBEDDINGS_MODEL;
    const text = await measureRecall(db, actor, world, ids);

    let hybrid: Awaited<ReturnType<typeof measureRecall>> | { error: string } | null = null;
    if (embeddings) {
      try {
        Object.assign(process.env, { STEWARD_EMBEDDINGS_MODEL: embeddings.model });
        await db.execute(sql`INSERT INTO memory_embedding_queue (memory_id) SELECT id FROM memories WHERE user_id = ${user.id} ON CONFLICT DO NOTHING`);
        for (let left = true; left; ) {
          const batch = await embedQueuedMemories(db, embeddings);
          if (batch.error) throw new Error(batch.error);
          left = batch.left;
        }
        await db.execute(sql`VACUUM ANALYZE memory_embeddings`);
        hybrid = await measureRecall(db, actor, world, ids);
      } catch (e) {
        hybrid = { error: e instanceof Error ? e.message : String(e) };
      } finally {
        delete process.env.STEWARD_EMBEDDINGS_MODEL;
      }
    }

    // One million memories in the account: the user's copied to 99 others (BENCH_MEMORY_MILLION=0 stops here).
    const measured = {
      recallAtContext: text.recall,
      ...(hybrid && 'recall' in hybrid ? { recallAtContextHybrid: hybrid.recall, contextMsHybrid: hybrid.ms, byTransformHybrid: hybrid.byTransform } : {}),
      ...(hybrid && 'error' in hybrid ? { hybridError: hybrid.error } : {}),
      contextMs: text.ms,
    };
    if (process.env.BENCH_MEMORY_MILLION === '0') return { ...measured, byTransform: text.byTransform, missedExamples: text.missed };
    await db.execute(sql`
      INSERT INTO users (id, account_id, email, first_name)
      SELECT substr(md5('bench-user' || g), 1, 24), ${accountId}, 'other' || g || '@bench.test', 'Other' FROM generate_series(1, ${OTHER_USERS}) g
    `);
    await withGinRebuilt(db, () =>
      db
        .execute(sql`
          INSERT INTO memories (id, account_id, user_id, tags, content, search_config, source, created_at, updated_at)
          SELECT substr(md5(m.id || u.id), 1, 24), m.account_id, u.id, m.tags, m.content, m.search_config, m.source, m.created_at, m.updated_at
          FROM memories m CROSS JOIN (SELECT id FROM ${users} WHERE account_id = ${accountId} AND id <> ${user.id}) u
          WHERE m.user_id = ${user.id}
        `)
        .then(() => undefined),
    );
    await db.execute(sql`VACUUM ANALYZE memories`);
    const [{ n }] = (await db.execute<{ n: string }>(sql`SELECT count(*) AS n FROM memories WHERE account_id = ${accountId}`)).rows;

    for (const p of world.probes.slice(0, WARMUP)) await searchMemories(db, actor, { q: p.question, limit: 20 });
    const searchTimes: number[] = [];
    for (const p of world.probes) {
      const t = performance.now();
      await searchMemories(db, actor, { q: p.question, limit: 20 });
      searchTimes.push(performance.now() - t);
    }
    const atMillion = await measureRecall(db, actor, world, ids);

    return {
      ...measured,
      searchMs: spread(searchTimes),
      contextMsAt1m: atMillion.ms,
      recallAtContextAt1m: atMillion.recall,
      byTransform: text.byTransform,
      missedExamples: text.missed,
      memoriesPerUser: MEMORIES,
      memoriesInAccount: Number(n),
      probes: world.probes.length,
      target: { recallAtContext: 0.95, contextMsP50: 20, searchMsP50: 30 },
    };
  } finally {
    if (savedModel === undefined) delete process.env.STEWARD_EMBEDDINGS_MODEL;
    else process.env.STEWARD_EMBEDDINGS_MODEL = savedModel;
    await database.close();
    await pgServer.stop();
  }
}
