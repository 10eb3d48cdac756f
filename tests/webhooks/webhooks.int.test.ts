import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webhookEndpoints } from '@/db/schema';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { startReceiver } from './receiver';

/**
 * Outbound events (issue 20): an account registers endpoints; Steward delivers signed events
 * (Standard Webhooks) through the durable engine, retries failures with backoff, disables an
 * endpoint that keeps failing, and keeps a delivery log. Real deliveries to a loopback receiver,
 * verified with the same package a customer would use.
 */
process.env.STEWARD_WEBHOOK_ALLOW_PRIVATE = '127.0.0.0/8';
process.env.STEWARD_WEBHOOK_BACKOFF_MS = '150';

const h = useCartHarness();
const { app } = h;
// Each test has its own receiver: deliveries of an earlier test may still be arriving.
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const register = async (key: string, body: Record<string, unknown>) => {
  const r = await call(app(), '/webhooks', { key, body: { url: receiver.url, ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.webhook.id as string, secret: r.body.secret as string };
};
const verify = (secret: string, m: (typeof receiver.received)[number]) =>
  new Webhook(secret).verify(m.body, { 'webhook-id': String(m.headers['webhook-id']), 'webhook-timestamp': String(m.headers['webhook-timestamp']), 'webhook-signature': String(m.headers['webhook-signature']) });
const signedWith = (secret: string) => (m: (typeof receiver.received)[number]) => {
  try {
    verify(secret, m);
    return true;
  } catch {
    return false;
  }
};
const deliveries = async (key: string, id: string) => (await call(app(), `/webhooks/${id}/deliveries`, { key })).body.deliveries as any[];

describe('registering endpoints', () => {
  it('shows the secret once, keeps it sealed, and lists, reads, changes and deletes the endpoint', async () => {
    const acct = await newAccount(app());
    const { id, secret } = await register(acct.key, { events: ['task.status_changed'], description: 'CRM sync' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const [row] = await h.db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));

    const read = await call(app(), `/webhooks/${id}`, { key: acct.key });
    expect(read.status).toBe(200);
    expect(read.body.webhook).toMatchObject({ id, url: receiver.url, events: ['task.status_changed'], status: 'enabled', description: 'CRM sync' });
    expect(JSON.stringify(read.body)).not.toContain(secret);
    const listed = await call(app(), '/webhooks', { key: acct.key });
    expect(listed.body).toMatchObject({ total: 1, webhooks: [{ id }] });

    const changed = await call(app(), `/webhooks/${id}`, { method: 'PATCH', key: acct.key, body: { events: [] } });
    expect(changed.body.webhook.events).toEqual([]);

    // Another account sees nothing of it.
    const other = await newAccount(app(), 'Other');
    expect((await call(app(), `/webhooks/${id}`, { key: other.key })).status).toBe(404);
    expect((await call(app(), `/webhooks/${id}`, { method: 'DELETE', key: other.key })).status).toBe(404);
    expect((await call(app(), '/webhooks', { key: other.key })).body.total).toBe(0);

    const deleted = await call(app(), `/webhooks/${id}`, { method: 'DELETE', key: acct.key });
    expect(deleted.body).toEqual({ ok: true, webhook: { id, deleted: true } });
    expect((await call(app(), `/webhooks/${id}`, { key: acct.key })).status).toBe(404);
  });

  it('refuses users, bad bodies, and URLs inside the deployment’s network', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const uk = await userKey(app(), acct, u.id);
    expect((await call(app(), '/webhooks', { key: uk, body: { url: receiver.url } })).status).toBe(403);
    expect((await call(app(), '/webhooks', { key: acct.key, as: u.email, body: { url: receiver.url } })).status).toBe(403);

    const bad = await call(app(), '/webhooks', { key: acct.key, body: { url: 'ftp://example.org/x', events: ['task.exploded'] } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('events');

    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.5/hook', 'http://[::1]:8080/', 'file:///etc/passwd', 'http://[::ffff:169.254.169.254]/']) {
      const r = await call(app(), '/webhooks', { key: acct.key, body: { url } });
      expect(r.status, url).toBe(400);
      expect(r.body.error_code, url).toBe('outbound_url_refused');
    }
    expect((await call(app(), '/webhooks', { key: acct.key })).body.total).toBe(0);
  });
});

describe('delivering events', () => {
  it('delivers task.status_changed and cart events, signed, filtered per endpoint, and logs them', async () => {
    const acct = await newAccount(app());
    const all = await register(acct.key, {});
    const cartsOnly = await register(acct.key, { events: ['cart.pending_approval', 'cart.executed'] });
    const p = await h.person(acct);
    await h.cells(p, { email_as_assistant: { undoDelaySec: 0 } });
    const { taskId, runId } = await h.stagingRun(p, [emailCall()], { approvalMode: 'manual' });
    const cart = await h.cartOfRun(runId);

    const ofTask = () => receiver.received.filter((m) => m.json.data.taskId === taskId);
    await h.until(async () => (ofTask().some((m) => m.json.type === 'cart.pending_approval') ? true : null), 15_000);
    const seen = await h.readCart(p, cart.id);
    expect((await h.approve(p, cart.id, { contentHash: seen.contentHash })).status).toBe(200);
    await h.until(async () => (ofTask().filter((m) => m.json.type === 'cart.executed').length === 2 ? true : null), 20_000);

    const forAll = ofTask().filter(signedWith(all.secret));
    const forCarts = ofTask().filter((m) => !forAll.includes(m));
    // Each delivery verifies with its own endpoint's secret only.
    for (const m of forCarts) expect(() => verify(cartsOnly.secret, m)).not.toThrow();
    expect(forCarts.map((m) => m.json.type).sort()).toEqual(['cart.executed', 'cart.pending_approval']);
    const statusMoves = forAll.filter((m) => m.json.type === 'task.status_changed').map((m) => `${m.json.data.from}->${m.json.data.to}`);
    expect(statusMoves).toContain('pending->executing');
    expect(forAll.find((m) => m.json.type === 'cart.executed')!.json.data).toMatchObject({ cartId: cart.id, taskId, userId: p.id, status: 'executed' });

    // Once every recorded delivery has settled, the log and what arrived agree one to one.
    const { log, arrived } = await h.until(async () => {
      const l = await deliveries(acct.key, all.id);
      const got = receiver.received.filter(signedWith(all.secret));
      return l.length && l.every((d) => d.status === 'succeeded') && got.length === l.length ? { log: l, arrived: got } : null;
    }, 20_000);
    expect(log.every((d) => d.attempts === 1 && d.lastStatusCode === 200)).toBe(true);
    expect(new Set(arrived.map((m) => m.headers['webhook-id']))).toEqual(new Set(log.map((d) => d.id)));
  });

  it('delivers chat.message for every message a chat gains', async () => {
    const acct = await newAccount(app());
    const hook = await register(acct.key, { events: ['chat.message'] });
    const p = await h.person(acct);
    const chat = await call(app(), '/chats', { key: p.key, body: { assistantId: p.assistantId } });
    expect(chat.status).toBe(201);
    const added = await call(app(), `/chats/${chat.body.chat.id}/messages`, { key: p.key, body: { content: 'Remember the milk' } });
    const got = await h.until(async () => receiver.received.find((m) => m.json.type === 'chat.message') ?? null, 15_000);
    expect(verify(hook.secret, got)).toMatchObject({ type: 'chat.message', data: { chatId: chat.body.chat.id, messageId: added.body.message.id, role: 'user', content: 'Remember the milk' } });
  });

  it('retries after 500s with the same webhook-id until the endpoint answers 2xx', async () => {
    const acct = await newAccount(app());
    const hook = await register(acct.key, {});
    receiver.answerNext(500, 503);
    const before = receiver.received.length;
    const test = await call(app(), `/webhooks/${hook.id}/test`, { method: 'POST', key: acct.key });
    expect(test.status).toBe(202);
    const deliveryId = test.body.delivery.id as string;
    const done = await h.until(async () => {
      const d = (await deliveries(acct.key, hook.id)).find((x) => x.id === deliveryId);
      return d?.status === 'succeeded' ? d : null;
    }, 20_000);
    expect(done).toMatchObject({ attempts: 3, lastStatusCode: 200, eventType: 'webhook.test' });
    const attempts = receiver.received.slice(before).filter((m) => m.headers['webhook-id'] === deliveryId);
    expect(attempts).toHaveLength(3);
    for (const m of attempts) expect(verify(hook.secret, m)).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
  });

  it('disables an endpoint that fails for the whole retry window, and PATCH enables it again', async () => {
    process.env.STEWARD_WEBHOOK_RETRY_WINDOW_MS = '700';
    try {
      const acct = await newAccount(app());
      const hook = await register(acct.key, {});
      receiver.answerNext(500, 500, 500, 500, 500, 500, 500, 500);
      const test = await call(app(), `/webhooks/${hook.id}/test`, { method: 'POST', key: acct.key });
      const failed = await h.until(async () => {
        const d = (await deliveries(acct.key, hook.id)).find((x) => x.id === test.body.delivery.id);
        return d?.status === 'failed' ? d : null;
      }, 20_000);
      expect(failed.attempts).toBeGreaterThan(1);
      expect(failed.lastError).toBe('HTTP 500');
      const read = await call(app(), `/webhooks/${hook.id}`, { key: acct.key });
      expect(read.body.webhook.status).toBe('disabled');
      expect(read.body.webhook.disabledReason).toMatch(/kept failing/);
      expect((await call(app(), `/webhooks/${hook.id}/test`, { method: 'POST', key: acct.key })).status).toBe(409);
      receiver.answerNext();
      const enabled = await call(app(), `/webhooks/${hook.id}`, { method: 'PATCH', key: acct.key, body: { status: 'enabled' } });
      expect(enabled.body.webhook).toMatchObject({ status: 'enabled', disabledReason: null });
    } finally {
      delete process.env.STEWARD_WEBHOOK_RETRY_WINDOW_MS;
    }
  });
});
