import { describe, expect, it } from 'vitest';
import { createStewardClient } from '@/client/index';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * The typed client (client/) and Idempotency-Key: every POST and PATCH carries one, the same on
 * every retry, so an answer lost on the way back is asked for again and replayed, not redone.
 */
const app = useTestServer();

describe('@steward/client sends an Idempotency-Key', () => {
  it('a POST whose answer was lost (the server did the work) is retried with the same key and done once', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const key = await userKey(app(), acct, u.id);
    const keys: (string | null)[] = [];
    let dropped = false;
    const steward = createStewardClient({
      baseUrl: app().baseUrl,
      apiKey: key,
      retry: { baseDelayMs: 1 },
      sleep: async () => undefined,
      // The first answer reaches the network and is lost on its way back: a reset after the server acted.
      fetch: async (request) => {
        keys.push(request.headers.get('Idempotency-Key'));
        const res = await fetch(request);
        if (!dropped && request.method === 'POST') {
          dropped = true;
          await res.body?.cancel();
          throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
        }
        return res;
      },
    });
    const made = await steward.POST('/memories', { body: { content: 'Remember the milk' } });
    expect(made.memory.content).toBe('Remember the milk');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    const listed = (await call(app(), '/memories', { key })).body.memories as Array<{ content: string }>;
    expect(listed.filter((m) => m.content === 'Remember the milk')).toHaveLength(1);
    // A GET carries none; a caller's own key is kept; `idempotencyKeys: false` sends none.
    keys.length = 0;
    await steward.GET('/memories');
    await steward.POST('/memories', { body: { content: 'mine' }, headers: { 'Idempotency-Key': 'caller-chosen' } });
    expect(keys).toEqual([null, 'caller-chosen']);
    const plain = createStewardClient({ baseUrl: app().baseUrl, apiKey: key, idempotencyKeys: false, fetch: async (r) => (keys.push(r.headers.get('Idempotency-Key')), fetch(r)) });
    await plain.POST('/memories', { body: { content: 'unkeyed' } });
    expect(keys.at(-1)).toBeNull();
  });
});
