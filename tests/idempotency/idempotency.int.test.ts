import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { chatTurns, idempotencyKeys, taskRuns } from '@/db/schema';
import { registerTurnDispatcher, turnDispatcher } from '@/server/chats/turn-dispatch';
import { finishTurn } from '@/server/chats/turn-run';
import { sweepExpiredKeys } from '@/server/http/idempotency';
import { call, newAccount, newUser, userKey, type Call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { newChat, openStream } from '../chats/turn-harness';

/**
 * Idempotency-Key (spec 5, issue 31) over real HTTP: the first answer to a POST or PATCH is kept per
 * credential and key and replayed; another request under the same key is 422; a request still being
 * answered is waited for; a stream replays nothing (409 while its turn runs, its summary after).
 */
const app = useTestServer();
const db = () => app().database.db;
let seq = 0;
const freshKey = () => `key-${Date.now().toString(36)}-${seq++}`;

async function person() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  return { acct, u, key: await userKey(app(), acct, u.id) };
}
const withKey = (k: string, opts: Call = {}): Call => ({ ...opts, headers: { ...(opts.headers ?? {}), 'Idempotency-Key': k } });
const memories = async (key: string) => (await call(app(), '/memories', { key })).body.memories as Array<{ id: string; content: string }>;

describe('a retried POST', () => {
  it('gets the first answer again, byte for byte, with Idempotent-Replayed: true, and nothing happens twice', async () => {
    const { key } = await person();
    const k = freshKey();
    const first = await call(app(), '/memories', withKey(k, { key, body: { content: 'Ada likes tea' } }));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await call(app(), '/memories', withKey(k, { key, body: { content: 'Ada likes tea' } }));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect((await memories(key)).filter((m) => m.content === 'Ada likes tea')).toHaveLength(1);
  });

  it('a refusal is kept too: the retry gets the same 4xx and the service is not asked again', async () => {
    const { key } = await person();
    const k = freshKey();
    const first = await call(app(), '/tasks', withKey(k, { key, body: { title: 'No assistant', assistant: 'ffffffffffffffffffffffff' } }));
    expect(first.status).toBeGreaterThanOrEqual(400);
    const again = await call(app(), '/tasks', withKey(k, { key, body: { title: 'No assistant', assistant: 'ffffffffffffffffffffffff' } }));
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('POST /tasks and POST /tasks/{id}/process retried create one task and queue one run', async () => {
    const { u, key } = await person();
    const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    const k = freshKey();
    const body = { title: 'Book a table', assistant: hired.body.assistant.id };
    const [a, b] = [await call(app(), '/tasks', withKey(k, { key, body })), await call(app(), '/tasks', withKey(k, { key, body }))];
    expect(b.body.task.id).toBe(a.body.task.id);
    expect((await call(app(), '/tasks', { key })).body.tasks.filter((t: { title: string }) => t.title === 'Book a table')).toHaveLength(1);
    const p = freshKey();
    const run1 = await call(app(), `/tasks/${a.body.task.id}/process`, withKey(p, { key, body: { message: 'For two' } }));
    const run2 = await call(app(), `/tasks/${a.body.task.id}/process`, withKey(p, { key, body: { message: 'For two' } }));
    expect(run1.status).toBe(200);
    expect(run2.body).toEqual(run1.body);
    expect(await db().select().from(taskRuns).where(eq(taskRuns.taskId, a.body.task.id))).toHaveLength(1);
  });

  it('the same key with another body, path or method is 422 idempotency_key_reused, and the other request does not run', async () => {
    const { key } = await person();
    const k = freshKey();
    const first = await call(app(), '/memories', withKey(k, { key, body: { content: 'one' } }));
    expect(first.status).toBe(201);
    const otherBody = await call(app(), '/memories', withKey(k, { key, body: { content: 'two' } }));
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toMatchObject({ ok: false, status: 422, error_code: 'idempotency_key_reused' });
    const otherPath = await call(app(), `/memories/${first.body.memory.id}`, withKey(k, { key, method: 'PUT', body: { content: 'one' } }));
    // PUT takes no key (spec: POST and PATCH): it runs as any PUT.
    expect(otherPath.status).toBe(200);
    const otherMethod = await call(app(), '/api-keys', withKey(k, { key, body: { label: 'x' } }));
    expect(otherMethod.status).toBe(422);
    expect((await memories(key)).map((m) => m.content)).not.toContain('two');
  });

  it('keys belong to their credential: another key with the same Idempotency-Key runs on its own', async () => {
    const a = await person();
    const b = await person();
    const k = freshKey();
    const first = await call(app(), '/memories', withKey(k, { key: a.key, body: { content: 'mine' } }));
    const second = await call(app(), '/memories', withKey(k, { key: b.key, body: { content: 'mine' } }));
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.memory.id).not.toBe(first.body.memory.id);
  });

  it('an account key acting as another user under the same key is another request: 422', async () => {
    const { acct, u } = await person();
    const other = await newUser(app(), acct);
    const k = freshKey();
    expect((await call(app(), '/memories', withKey(k, { key: acct.key, as: u.email, body: { content: 'note' } }))).status).toBe(201);
    const asOther = await call(app(), '/memories', withKey(k, { key: acct.key, as: other.email, body: { content: 'note' } }));
    expect(asOther.status).toBe(422);
  });

  it('a malformed key is 400 naming the header; GET ignores the header', async () => {
    const { key } = await person();
    for (const bad of ['x'.repeat(256), 'caf\u00e9']) {
      const res = await call(app(), '/memories', withKey(bad, { key, body: { content: 'x' } }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('Idempotency-Key');
    }
    const read = await call(app(), '/memories', withKey('any', { key }));
    expect(read.status).toBe(200);
    expect(read.headers.get('idempotent-replayed')).toBeNull();
  });

  it('requests at once with one key: one runs, the others wait for its answer and replay it', async () => {
    const { key } = await person();
    const k = freshKey();
    const answers = await Promise.all(Array.from({ length: 5 }, () => call(app(), '/memories', withKey(k, { key, body: { content: 'raced' } }))));
    for (const a of answers) expect([201, 409]).toContain(a.status);
    const created = answers.filter((a) => a.status === 201);
    expect(new Set(created.map((a) => a.body.memory.id)).size).toBe(1);
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect((await memories(key)).filter((m) => m.content === 'raced')).toHaveLength(1);
  });

  it('a key still being answered after the wait is 409 idempotency_key_in_use; an expired key runs anew and sweeps away', async () => {
    const { key } = await person();
    const k = freshKey();
    const first = await call(app(), '/memories', withKey(k, { key, body: { content: 'held' } }));
    await db().update(idempotencyKeys).set({ state: 'running', lockedUntil: new Date(Date.now() + 60_000) }).where(eq(idempotencyKeys.key, k));
    const started = Date.now();
    const busy = await call(app(), '/memories', withKey(k, { key, body: { content: 'held' } }));
    expect(busy.status).toBe(409);
    expect(busy.body.error_code).toBe('idempotency_key_in_use');
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
    // Past 24 hours the key is forgotten: the same request runs again.
    await db().update(idempotencyKeys).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(idempotencyKeys.key, k));
    const fresh = await call(app(), '/memories', withKey(k, { key, body: { content: 'held' } }));
    expect(fresh.status).toBe(201);
    expect(fresh.body.memory.id).not.toBe(first.body.memory.id);
    await db().update(idempotencyKeys).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(idempotencyKeys.key, k));
    expect(await sweepExpiredKeys(app().database.pool)).toBeGreaterThanOrEqual(1);
    expect(await db().select().from(idempotencyKeys).where(eq(idempotencyKeys.key, k))).toEqual([]);
  }, 20_000);

  it('a PATCH is kept the same way', async () => {
    const acct = await newAccount(app());
    const created = await call(app(), '/webhooks', { key: acct.key, body: { url: 'https://93.184.215.14/hooks' } });
    const k = freshKey();
    const path = `/webhooks/${created.body.webhook.id}`;
    const first = await call(app(), path, withKey(k, { key: acct.key, method: 'PATCH', body: { description: 'v1' } }));
    expect(first.status).toBe(200);
    await call(app(), path, { key: acct.key, method: 'PATCH', body: { description: 'v2' } });
    const again = await call(app(), path, withKey(k, { key: acct.key, method: 'PATCH', body: { description: 'v1' } }));
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await call(app(), path, { key: acct.key })).body.webhook.description).toBe('v2');
  });
});

describe('a retried stream (POST /chats/{chatId}/process)', () => {
  it('replays nothing: 409 while the turn runs, the JSON summary once it ended, and no second turn', async () => {
    const { u, key } = await person();
    const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Chatty' } });
    const chatId = await newChat(app(), { key, assistantId: hired.body.assistant.id });
    const k = freshKey();
    // An engine that has not taken the turn yet: it stays queued until the test ends it.
    const previous = turnDispatcher();
    registerTurnDispatcher(() => new Promise(() => {}));
    const stream = openStream(app(), `/chats/${chatId}/process`, { key, body: { message: { content: 'Hello' } }, headers: { 'Idempotency-Key': k } });
    const opened = await stream.waitFor((e) => e.data?.executionId, 'the first event');
    const turnId = opened.data.executionId as string;
    stream.hangUp();
    registerTurnDispatcher(previous);
    // The turn is still queued, so the key is in use.
    const busy = await call(app(), `/chats/${chatId}/process`, withKey(k, { key, body: { message: { content: 'Hello' } } }));
    expect(busy.status).toBe(409);
    expect(busy.body.error_code).toBe('idempotency_key_in_use');
    await db().update(chatTurns).set({ status: 'running' }).where(eq(chatTurns.id, turnId));
    await finishTurn(db(), turnId, { kind: 'answered', text: 'Hi there' });
    const summary = await call(app(), `/chats/${chatId}/process`, withKey(k, { key, body: { message: { content: 'Hello' } } }));
    expect(summary.status).toBe(200);
    expect(summary.headers.get('content-type')).toContain('application/json');
    expect(summary.headers.get('idempotent-replayed')).toBe('true');
    expect(summary.body).toMatchObject({ ok: true, executionId: turnId, chatId, status: 'completed', message: { role: 'assistant', content: 'Hi there' }, taskIds: [] });
    const turns = await db().execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM chat_turns WHERE chat_id = ${chatId}`);
    expect(turns.rows[0].n).toBe(1);
  });
});
