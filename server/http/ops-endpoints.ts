import { timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { migrationStatus } from '@/db/migration-status';
import { defineEndpoint, reply } from './endpoint';
import { AppError } from './errors';
import { renderMetrics, type Gauge } from './metrics';
import { TextReply } from './reply';

const Health = z.object({ ok: z.literal(true), status: z.literal('ok') });
const Ready = z.object({ ok: z.boolean(), status: z.enum(['ready', 'not_ready']), checks: z.object({ database: z.boolean(), migrations: z.boolean() }), expectedMigration: z.string().nullable() });

/** The token GET /api/metrics asks for; unset means the endpoint is off (404), so nothing leaks by default. */
const metricsToken = () => process.env.STEWARD_METRICS_TOKEN || null;

function tokenMatches(header: string | null, token: string): boolean {
  const presented = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * Engine gauges read at scrape time: runs due and not yet claimed, how late the oldest of them is,
 * and how long the oldest step now running has run (a step past its deadline fails its attempt:
 * server/executor/step-deadlines.ts; a large age means steps that overstay).
 */
async function engineGauges(db: Parameters<typeof migrationStatus>[0]): Promise<Gauge[]> {
  const r = await db.execute<{ due: number; late_ms: number | null; running: number; step_ms: number | null }>(sql`
    SELECT
      (SELECT count(*)::int FROM executor_runs WHERE status IN ('queued', 'sleeping', 'waiting') AND available_at <= now()) AS due,
      (SELECT (extract(epoch FROM now() - min(available_at)) * 1000)::float8 FROM executor_runs WHERE status IN ('queued', 'sleeping', 'waiting') AND available_at <= now()) AS late_ms,
      (SELECT count(*)::int FROM executor_runs WHERE status = 'running') AS running,
      (SELECT (extract(epoch FROM now() - min(step_started_at)) * 1000)::float8 FROM executor_runs WHERE status = 'running') AS step_ms`);
  const row = r.rows[0];
  return [
    { name: 'steward_engine_runs_due', help: 'Durable runs due now and not yet claimed (queue depth)', samples: [{ value: Number(row?.due ?? 0) }] },
    { name: 'steward_engine_runs_running', help: 'Durable runs claimed by a worker', samples: [{ value: Number(row?.running ?? 0) }] },
    { name: 'steward_engine_oldest_due_lateness_seconds', help: 'How long the oldest due run has waited past its time', samples: [{ value: Math.max(0, Number(row?.late_ms ?? 0)) / 1000 }] },
    { name: 'steward_engine_oldest_running_step_age_seconds', help: 'How long the longest-running step now running has run', samples: [{ value: Math.max(0, Number(row?.step_ms ?? 0)) / 1000 }] },
  ];
}

/**
 * Liveness, readiness and metrics for load balancers and operators (docs/deploy.md). Health
 * answers without touching the database: a process that can answer is alive. Readiness checks
 * the database and that every migration this build ships has been applied: a load balancer
 * sends no traffic to a process that would fail its first query.
 */
export const opsEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/health',
    summary: 'Liveness: the process answers',
    tags: ['Operations'],
    auth: 'none',
    response: Health,
    handle: async () => ({ ok: true as const, status: 'ok' as const }),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/ready',
    summary: 'Readiness: the database answers and its migrations are applied',
    tags: ['Operations'],
    auth: 'none',
    response: Ready,
    errors: [503],
    handle: async ({ db }) => {
      let database = false;
      let migrations = false;
      let expected: string | null = null;
      try {
        await db.execute(sql`SELECT 1`);
        database = true;
        const m = await migrationStatus(db);
        migrations = m.applied;
        expected = m.expected;
      } catch {
        // Not ready: the answer says which check failed.
      }
      const ready = database && migrations;
      const body = { ok: ready, status: ready ? ('ready' as const) : ('not_ready' as const), checks: { database, migrations }, expectedMigration: expected };
      return ready ? body : reply(503, body, { 'Retry-After': '5' });
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics of this process (needs STEWARD_METRICS_TOKEN as a Bearer token)',
    tags: ['Operations'],
    auth: 'none',
    raw: true,
    response: z.string(),
    errors: [401, 404],
    handle: async ({ db, req }) => {
      const token = metricsToken();
      if (!token) throw new AppError(404, 'not_found', 'Metrics are off; set STEWARD_METRICS_TOKEN to serve them');
      if (!tokenMatches(req.headers.get('authorization'), token)) throw new AppError(401, 'unauthorized', 'The metrics token is missing or wrong');
      const body = renderMetrics(await engineGauges(db));
      return new TextReply(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' }, body);
    },
  }),
];
