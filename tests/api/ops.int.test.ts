import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('health and readiness (what a load balancer asks)', () => {
  it('health answers without a credential', async () => {
    const r = await call(app(), '/health', { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, status: 'ok' });
  });

  it('ready checks the database and that the shipped migrations are applied', async () => {
    const r = await call(app(), '/ready', { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, status: 'ready', checks: { database: true, migrations: true } });
    expect(typeof (r.body as { expectedMigration: unknown }).expectedMigration).toBe('string');
  });

  it('ready is 503 while a migration this build ships is missing, and ready again once it is there', async () => {
    const { db } = app().database;
    const newest = await db.execute<{ id: number; created_at: string }>(sql`SELECT id, created_at::text FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`);
    const row = newest.rows[0];
    // Pretend the newest migration was never applied (an older build migrated this database).
    await db.execute(sql`UPDATE drizzle.__drizzle_migrations SET created_at = created_at - 1 WHERE id = ${row.id}`);
    try {
      const r = await call(app(), '/ready', { key: null });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
      expect(r.body).toMatchObject({ ok: false, status: 'not_ready', checks: { database: true, migrations: false } });
    } finally {
      await db.execute(sql`UPDATE drizzle.__drizzle_migrations SET created_at = ${row.created_at}::bigint WHERE id = ${row.id}`);
    }
    expect((await call(app(), '/ready', { key: null })).status).toBe(200);
  });
});

describe('GET /metrics', () => {
  it('is off (404) until STEWARD_METRICS_TOKEN is set', async () => {
    vi.stubEnv('STEWARD_METRICS_TOKEN', '');
    const r = await call(app(), '/metrics', { key: null });
    expect(r.status).toBe(404);
  });

  it('needs the token, then counts requests by route template and status, and shows the engine queue', async () => {
    vi.stubEnv('STEWARD_METRICS_TOKEN', 'metrics-secret-token');
    expect((await call(app(), '/metrics', { key: null })).status).toBe(401);
    expect((await call(app(), '/metrics', { key: 'wrong-token-of-other-length' })).status).toBe(401);

    const acct = await newAccount(app());
    await call(app(), '/me', { key: acct.key });
    await call(app(), '/users/no-such-user', { key: acct.key });
    const r = await fetch(`${app().baseUrl}/metrics`, { headers: { Authorization: 'Bearer metrics-secret-token' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    expect(text).toMatch(/^steward_http_requests_total\{method="GET",route="\/me",status="200"\} [1-9]\d*$/m);
    // The route is the registry's template, never the request's own path (bounded label values).
    expect(text).toMatch(/^steward_http_requests_total\{method="GET",route="\/users\/\{userId\}",status="404"\} [1-9]\d*$/m);
    expect(text).not.toContain('no-such-user');
    expect(text).toMatch(/^steward_http_request_duration_seconds_count\{route="\/me"\} [1-9]\d*$/m);
    expect(text).toMatch(/^steward_engine_runs_due \d+$/m);
    expect(text).toMatch(/^steward_engine_oldest_due_lateness_seconds [\d.]+$/m);
  });
});
