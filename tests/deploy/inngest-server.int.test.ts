import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@/db/embedded';
import { appSecrets, engineHandoffs, executorFunctions } from '@/db/schema';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { startInngestServerFake, type InngestServerFake } from '../helpers/inngest-server-fake';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';

/**
 * Inngest server mode (INNGEST_BASE_URL; docs/durable-work.md), where no Inngest server can run:
 * npm start with a loopback stand-in for the server (tests/helpers/inngest-server-fake.ts), which
 * calls /api/inngest as the server does (signed syncs, introspection, the trust probe, the step
 * calls of a run) and receives what the SDK sends to the server (registration, events). The
 * functions the server gets are the ones the built-in executor registers, read from a process
 * that ran with it on the same database first.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let fake: InngestServerFake;
let app: ProductionServer;
let serveUrl = '';
let builtIn: { id: string; config: unknown }[] = [];
const signingKey = `signkey-prod-${randomBytes(32).toString('hex')}`;
const eventKey = randomBytes(24).toString('hex');

beforeAll(async () => {
  database = await createTestDatabase();
  // The built-in executor's registration, as npm start makes it (in the database).
  const withExecutor = await startProductionServer(database, { STEWARD_INBOUND_SMTP_PORT: 'off' });
  await withExecutor.kill('SIGTERM');
  builtIn = await database.database.db.select({ id: executorFunctions.id, config: executorFunctions.config }).from(executorFunctions);
  await database.database.db.delete(executorFunctions);

  fake = await startInngestServerFake({ signingKey, eventKey });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  serveUrl = `${origin}/api/inngest`;
  app = await startProductionServer(
    database,
    { INNGEST_BASE_URL: fake.url, INNGEST_SIGNING_KEY: signingKey, INNGEST_EVENT_KEY: eventKey, INNGEST_SERVE_ORIGIN: origin, STEWARD_INBOUND_SMTP_PORT: 'off' },
    port,
  );
}, 240_000);
afterAll(async () => {
  await app?.kill();
  await fake?.close();
  await database?.drop();
});

/** A function's configuration without the serve URL it names (which differs between the two processes). */
const withoutUrls = (config: unknown) => JSON.parse(JSON.stringify(config).replace(/https?:\/\/127\.0\.0\.1:\d+\/api\/inngest/g, '<serve>'));
const byId = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));

describe('with an Inngest server (INNGEST_BASE_URL)', () => {
  it('registers with the server the same functions the built-in executor runs, at the pinned serve URL, and runs no executor itself', async () => {
    expect(builtIn.length).toBeGreaterThan(10);
    expect(app.output()).not.toContain('Inngest function registration was refused');
    const registration = fake.registrations.at(-1)!;
    expect(registration, 'the SDK registered with the server').toBeDefined();
    expect(registration.url.split('?')[0]).toBe(serveUrl);
    expect(byId(registration.functions).map((f) => f.id)).toEqual(byId(builtIn).map((f) => f.id));
    const registered = new Map(registration.functions.map((f) => [f.id, f]));
    for (const f of builtIn) expect(withoutUrls(registered.get(f.id)), f.id).toEqual(withoutUrls(f.config));
    for (const f of registration.functions) for (const s of Object.values(f.steps)) expect(s.runtime?.url?.split('?')[0]).toBe(serveUrl);
    // Nothing went to the built-in executor's tables: this process does not run it.
    expect(await database.database.db.select().from(executorFunctions)).toEqual([]);
  });

  it('refuses unsigned and wrongly signed calls; answers a signed introspection, trust probe and in-band sync, always naming the pinned URL', async () => {
    const otherKey = `signkey-prod-${randomBytes(32).toString('hex')}`;
    for (const sign of [false, otherKey] as const) {
      expect((await fake.callApp(serveUrl, { method: 'GET', sign })).status).toBe(401);
      expect((await fake.callApp(serveUrl, { method: 'PUT', sign })).status).toBe(401);
      expect((await fake.callApp(serveUrl, { method: 'PUT', sign, headers: { 'x-inngest-sync-kind': 'in_band' }, body: { url: serveUrl } })).status).toBe(401);
    }
    const registrations = fake.registrations.length;

    const looked = await fake.callApp(serveUrl, { method: 'GET' });
    expect(looked.status).toBe(200);
    expect(looked.signedByApp, 'the answer carries the app’s signature').toBe(true);
    expect(looked.body).toMatchObject({ authentication_succeeded: true, mode: 'cloud', has_signing_key: true, has_event_key: true, function_count: builtIn.length, serve_path: '/api/inngest', app_id: 'steward' });
    expect(new URL(looked.body.api_origin).origin).toBe(fake.url);
    expect(new URL(looked.body.event_api_origin).origin).toBe(fake.url);

    const probe = await fake.callApp(serveUrl, { method: 'POST', query: { probe: 'trust' }, body: {} });
    expect(probe.status).toBe(200);
    expect(probe.signedByApp).toBe(true);

    // In band: the server asks with a URL; the app answers its functions at its own pinned URL.
    const inBand = await fake.callApp(serveUrl, { method: 'PUT', headers: { 'x-inngest-sync-kind': 'in_band' }, body: { url: 'https://attacker.example/api/inngest' } });
    expect(inBand.status, JSON.stringify(inBand.body).slice(0, 300)).toBe(200);
    expect(inBand.signedByApp).toBe(true);
    expect(inBand.body.url.split('?')[0]).toBe(serveUrl);
    expect(byId(inBand.body.functions as { id: string }[]).map((f) => f.id)).toEqual(byId(builtIn).map((f) => f.id));
    expect(JSON.stringify(inBand.body.functions)).not.toContain('attacker.example');

    // Out of band: a signed PUT makes the SDK register with the server again.
    const outOfBand = await fake.callApp(serveUrl, { method: 'PUT' });
    expect(outOfBand.status, JSON.stringify(outOfBand.body)).toBe(200);
    expect(fake.registrations.length).toBe(registrations + 1);
    expect(fake.refused).toEqual([]);
  });

  it('runs a function called step by step as the server calls it: the step runs once, the run ends with its output', async () => {
    const event = { name: 'steward/heartbeat', data: {} };
    // A step call signed with another key runs nothing.
    const forged = await fake.callApp(serveUrl, { method: 'POST', query: { fnId: 'steward-heartbeat', stepId: 'step' }, sign: `signkey-prod-${randomBytes(32).toString('hex')}`, body: { version: 2, event, events: [event], steps: {}, ctx: { run_id: 'forged', attempt: 0, max_attempts: 3, disable_immediate_execution: false, use_api: false, stack: { stack: [], current: 0 } } } });
    expect(forged.status).toBe(401);
    expect(await database.database.db.select().from(appSecrets).where(eq(appSecrets.name, 'heartbeat'))).toEqual([]);

    const { output, calls } = await fake.run(serveUrl, 'steward-heartbeat', event);
    // First call: the step ran and its result came back as an op; then the run ended with the output.
    expect(calls[0]).toMatchObject({ status: 206, ops: [{ op: 'StepRun', displayName: 'record-beat' }] });
    const [beat] = await database.database.db.select().from(appSecrets).where(eq(appSecrets.name, 'heartbeat'));
    expect(output).toEqual({ beatAt: beat!.value });
    expect(calls.filter((c) => c.ops.some((o) => o.op === 'StepRun'))).toHaveLength(1);
  });

  it('sends the events the app raises to the server’s event API with the event key', async () => {
    const acct = await newAccount(app);
    const u = await newUser(app, acct);
    const key = await userKey(app, acct, u.id);
    const hired = await call(app, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    const created = await call(app, '/tasks', { key, body: { title: 'Plan the week', assistant: hired.body.assistant.id } });
    const taskId = created.body.task.id as string;
    expect((await call(app, `/tasks/${taskId}/process`, { key, body: { message: 'Monday first' } })).status).toBe(200);
    const deadline = Date.now() + 30_000;
    while (!fake.events.some((e) => e.name === 'steward/task.run-requested' && e.data.taskId === taskId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const sent = fake.events.find((e) => e.name === 'steward/task.run-requested' && e.data.taskId === taskId);
    expect(sent?.data).toMatchObject({ taskId, accountId: acct.accountId });
    // The outbox row is stamped as sent: the server has it.
    const [row] = await database.database.db.select().from(engineHandoffs).where(eq(engineHandoffs.id, sent!.data.runId as string));
    expect(row?.sentAt).not.toBeNull();
  });
});
