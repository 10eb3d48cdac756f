import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appSecrets, executorFunctions } from '@/db/schema';
import { startExecutor, type Executor } from '@/server/executor/executor';
import { startIngress } from '@/server/executor/ingress';
import { signBody } from '@/server/executor/protocol';
import { useTestServer } from '../helpers/server';
import { eventKey, signingKey, until } from './harness';

/**
 * /api/inngest served in the kernel's own process, as npm start mounts it: the production
 * handler (inngest/serve.ts) in the lean node:http server, with the production client and
 * functions, driven by the built-in executor.
 */
const holder: { handler: ((req: Request, clientIp?: string) => Promise<Response>) | null } = { handler: null };
const app = useTestServer({
  mounts: { '/api/inngest': (req, info) => holder.handler!(req, info.clientIp) },
  rateLimits: { reads: 1_000_000, writes: 1_000_000, failedAuth: 4 },
});
let serveUrl = '';
let ingress: Awaited<ReturnType<typeof startIngress>>;
let executor: Executor | undefined;

beforeAll(async () => {
  serveUrl = `${new URL(app().baseUrl).origin}/api/inngest`;
  ingress = await startIngress({ db: app().database.db, signingKey, eventKey, serveUrl });
  // What npm start sets before it loads the serve endpoint (scripts/start.ts).
  vi.stubEnv('DATABASE_URL', app().database.pool.options.connectionString as string);
  vi.stubEnv('INNGEST_SIGNING_KEY', signingKey);
  vi.stubEnv('INNGEST_EVENT_KEY', eventKey);
  vi.stubEnv('STEWARD_EXECUTOR_URL', ingress.url);
  vi.stubEnv('STEWARD_INNGEST_SERVE_URL', serveUrl);
  const { inngestServeHandler } = await import('@/inngest/serve');
  holder.handler = inngestServeHandler(() => app().kernel.rateLimits);
});
afterAll(async () => {
  await executor?.stop();
  await ingress?.close();
  vi.unstubAllEnvs();
});

const now = () => Math.floor(Date.now() / 1000);
const put = (signature?: string) =>
  fetch(`${app().baseUrl}/inngest`, {
    method: 'PUT',
    // Not trusted (no TRUST_PROXY): the count goes to the socket's address.
    headers: { 'X-Forwarded-For': '203.0.113.9', ...(signature ? { 'X-Inngest-Signature': signature } : {}) },
  });

describe('/api/inngest in the kernel process', () => {
  it('refuses unsigned registration, counting each refusal for the caller’s address; a signed PUT registers at the pinned URL', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await put()).status);
    expect(statuses).toEqual([401, 401, 401, 401]);
    const fifth = await put();
    expect(fifth.status).toBe(429);
    expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await app().database.db.select().from(executorFunctions)).toEqual([]);

    const signed = await put(signBody('', signingKey, now()));
    expect(signed.status).toBe(200);
    const rows = await app().database.db.select().from(executorFunctions);
    expect(rows.map((r) => r.id)).toContain('steward-heartbeat');
    for (const r of rows) expect(r.url).toBe(serveUrl);
  });

  it('runs the production functions for the built-in executor', async () => {
    executor = await startExecutor({ db: app().database.db, databaseUrl: app().database.pool.options.connectionString as string, signingKey, idleMs: 200 });
    const { inngest } = await import('@/inngest/client');
    await inngest.send({ name: 'steward/heartbeat', data: {} });
    const beat = await until(async () => (await app().database.db.select().from(appSecrets).where(eq(appSecrets.name, 'heartbeat')))[0]);
    expect(Date.parse(beat.value)).toBeGreaterThan(Date.now() - 60_000);
    // The run went through the SDK's async context, which is off again now that no call is in
    // flight: API requests do not pay for it (inngest/async-context.ts).
    const { sdkStorageEnabled } = await import('@/inngest/async-context');
    expect(await until(async () => !sdkStorageEnabled())).toBe(true);
  });
});
