import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { startTwilioFake, type TwilioFake } from '../helpers/twilio-fake';

/*
 * SMS pumping (issue 40, the medium): codes are limited per destination — the number itself,
 * whichever identifier row holds it — in the account and across the deployment, per user, and per
 * caller address for API callers too (X-Forwarded-For only behind TRUST_PROXY). The reproduction:
 * POST /identifiers → six POST …/verification → DELETE → again: five codes reach the number, not
 * fifteen; every refusal is 429 with Retry-After. Wrong codes are the destination's too: a new
 * code does not bring the tries back within the window.
 */

const app = useTestServer();
let fake: TwilioFake;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  fake = await startTwilioFake();
  for (const [k, v] of Object.entries({ ...fake.env(), STEWARD_TWILIO_SMS_FROM: '+14155550399', TRUST_PROXY: undefined })) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await fake?.close();
});

let numbers = 0;
const nextNumber = () => `+1415557${String(1000 + ((Date.now() / 7 + numbers++ * 37) % 9000)).slice(0, 4)}`;

async function person(acct?: AccountFixture) {
  const account = acct ?? (await newAccount(app()));
  const u = await newUser(app(), account);
  return { acct: account, u, key: await userKey(app(), account, u.id) };
}
const addPhone = async (key: string, value: string) => {
  const res = await call(app(), '/identifiers', { key, body: { type: 'phone', value } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.identifier.id as string;
};
const ask = (key: string, id: string, headers: Record<string, string> = {}) => call(app(), `/identifiers/${id}/verification`, { key, method: 'POST', headers });
const codesTo = (to: string) => fake.sentTo(to).filter((m) => /verification code is \d{6}/.test(m.body ?? ''));

describe('codes to one number', () => {
  it('six requests, DELETE, again: five codes reach the number; each refusal is 429 rate_limited with Retry-After', async () => {
    const { key } = await person();
    const to = nextNumber();
    const first = await addPhone(key, to);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await ask(key, first)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await ask(key, first);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ ok: false, error_code: 'rate_limited', retryAfter: expect.any(Number) });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60 + 1);
    expect(refused.body.retryAfter).toBeGreaterThan(Math.floor(Date.now() / 1000));

    expect((await call(app(), `/identifiers/${first}`, { key, method: 'DELETE' })).status).toBe(200);
    const again = await addPhone(key, to);
    for (let i = 0; i < 6; i++) expect((await ask(key, again)).status).toBe(429);
    expect(codesTo(to)).toHaveLength(5);
  });

  it('across accounts the number has a budget of its own: a third account gets no code at all', async () => {
    const to = nextNumber();
    for (const expected of [[200, 200, 200, 200, 200, 429], [200, 200, 200, 200, 200, 429], [429]]) {
      const { key } = await person();
      const id = await addPhone(key, to);
      const got: number[] = [];
      for (let i = 0; i < expected.length; i++) got.push((await ask(key, id)).status);
      expect(got).toEqual(expected);
    }
    expect(codesTo(to)).toHaveLength(10);
  });

  it('a user asking for many numbers is limited too (10 codes in the window)', async () => {
    const { key } = await person();
    const ids = [await addPhone(key, nextNumber()), await addPhone(key, nextNumber()), await addPhone(key, nextNumber())];
    const got: number[] = [];
    for (const id of ids) for (let i = 0; i < 4; i++) got.push((await ask(key, id)).status);
    expect(got.filter((s) => s === 200)).toHaveLength(10);
    expect(got.slice(10)).toEqual([429, 429]);
  });

  it('an API caller’s address counts (30 codes in the window); X-Forwarded-For changes nothing unless TRUST_PROXY=1', async () => {
    const acct = await newAccount(app());
    let sent = 0;
    for (let u = 0; u < 3; u++) {
      const { key } = await person(acct);
      for (let n = 0; n < 2; n++) {
        const id = await addPhone(key, nextNumber());
        for (let i = 0; i < 5; i++) {
          const res = await ask(key, id, { 'X-Forwarded-For': `203.0.113.${sent++ % 250}` });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
        }
      }
    }
    const late = await person(acct);
    const id = await addPhone(late.key, nextNumber());
    expect((await ask(late.key, id, { 'X-Forwarded-For': '198.51.100.7' })).status).toBe(429);
    process.env.TRUST_PROXY = '1';
    try {
      // Behind a trusted proxy the address it saw is the caller's: another one has its own budget.
      expect((await ask(late.key, id, { 'X-Forwarded-For': '198.51.100.7' })).status).toBe(200);
    } finally {
      delete process.env.TRUST_PROXY;
    }
  });
});

describe('wrong codes', () => {
  it('five wrong codes spend the destination for the window: a new code, even on a new identifier row, is refused when right', async () => {
    const { key } = await person();
    const to = nextNumber();
    const id = await addPhone(key, to);
    expect((await ask(key, id)).status).toBe(200);
    const code = /(\d{6})/.exec(codesTo(to)[0]!.body!)![1]!;
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await call(app(), `/identifiers/${id}/verify`, { key, body: { code: wrong } })).body.error_code).toBe('invalid_code');
    expect((await ask(key, id)).status).toBe(200);
    const fresh = /(\d{6})/.exec(codesTo(to)[1]!.body!)![1]!;
    const refused = await call(app(), `/identifiers/${id}/verify`, { key, body: { code: fresh } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/too many times/);
    expect((await call(app(), `/identifiers/${id}`, { key, method: 'DELETE' })).status).toBe(200);
    const again = await addPhone(key, to);
    expect((await ask(key, again)).status).toBe(200);
    const third = /(\d{6})/.exec(codesTo(to)[2]!.body!)![1]!;
    expect((await call(app(), `/identifiers/${again}/verify`, { key, body: { code: third } })).status).toBe(400);
    expect((await call(app(), '/identifiers?type=phone', { key })).body.identifiers[0].verified).toBe(false);
  });
});
