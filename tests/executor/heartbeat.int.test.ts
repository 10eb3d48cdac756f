import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appSecrets } from '@/db/schema';
import { startExecutor, type Executor } from '@/server/executor/executor';
import { startIngress } from '@/server/executor/ingress';
import { useTestServer } from '../helpers/server';
import { eventKey, mounts, serveAndRegister, signingKey, until } from './harness';

/** The production client and functions (inngest/), end to end through the built-in executor. */
const app = useTestServer({ mounts });
let executor: Executor;
let ingress: Awaited<ReturnType<typeof startIngress>>;

beforeAll(async () => {
  ingress = await startIngress({ db: app().database.db, signingKey, eventKey });
  Object.assign(process.env, {
    STEWARD_EXECUTOR_URL: ingress.url,
    INNGEST_SIGNING_KEY: signingKey,
    INNGEST_EVENT_KEY: eventKey,
    DATABASE_URL: app().database.pool.options.connectionString as string,
  });
  const { inngest } = await import('@/inngest/client');
  const { functions } = await import('@/inngest/functions');
  await serveAndRegister(app(), inngest, functions);
  executor = await startExecutor({
    db: app().database.db,
    databaseUrl: app().database.pool.options.connectionString as string,
    signingKey,
    idleMs: 200,
  });
});
afterAll(async () => {
  await executor?.stop();
  await ingress?.close();
});

it('the heartbeat function records a beat when its event is sent, and its cron is planned', async () => {
  const { inngest } = await import('@/inngest/client');
  const { events } = await import('@/inngest/events');
  await inngest.send(events.heartbeatRequested.create({}));
  const beat = await until(async () => (await app().database.db.select().from(appSecrets).where(eq(appSecrets.name, 'heartbeat')))[0]);
  expect(Date.parse(beat.value)).toBeGreaterThan(Date.now() - 60_000);
  const crons = await app().database.pool.query(`SELECT function_id, cron FROM executor_crons`);
  expect(crons.rows).toContainEqual({ function_id: 'steward-heartbeat', cron: '*/10 * * * *' });
  expect(crons.rows).toContainEqual({ function_id: 'steward-domain-recheck', cron: '0 * * * *' });
  expect(crons.rows).toContainEqual({ function_id: 'steward-sign-in-sweep', cron: '30 * * * *' });
});
