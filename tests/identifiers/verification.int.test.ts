import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifierVerifications, mailOutbox } from '@/db/schema';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Spec 5, "Identifier verification": a 6-digit code by email, then the code back. The mail goes
 * through a loopback SMTP server, which is where the test reads the code, as a person reads their
 * inbox. Wrong, expired and exhausted codes; another user's identifier; a code never in clear.
 */
const app = useTestServer();
const inbox: CapturedMail[] = [];
let smtp: Awaited<ReturnType<typeof startMailCapture>>;

beforeAll(async () => {
  smtp = await startMailCapture((m) => inbox.push(m));
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await smtp?.close();
});

let seq = 0;
async function person(account?: AccountFixture) {
  const acct = account ?? (await newAccount(app()));
  const u = await newUser(app(), acct);
  return { acct, u, key: await userKey(app(), acct, u.id) };
}

/** A second address of the user, unverified, as a person adds it in the hosted app. */
async function addEmail(key: string) {
  const value = `second-${Date.now().toString(36)}-${seq++}@example.org`;
  const res = await call(app(), '/identifiers', { key, body: { type: 'email', value } });
  expect(res.status).toBe(201);
  return { id: res.body.identifier.id as string, value };
}

/** Asks for a code and reads it from the mail that arrived. */
async function codeFor(key: string, identifier: { id: string; value: string }) {
  const before = inbox.length;
  const res = await call(app(), `/identifiers/${identifier.id}/verification`, { key, method: 'POST' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await expect.poll(() => inbox.slice(before).some((m) => m.to.includes(identifier.value))).toBe(true);
  const mail = inbox.slice(before).find((m) => m.to.includes(identifier.value))!;
  return { code: /\b(\d{6})\b/.exec(mail.text)![1], expiresAt: res.body.expiresAt as string, mail };
}

const verify = (key: string, id: string, code: string) => call(app(), `/identifiers/${id}/verify`, { key, body: { code } });
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('identifier verification', () => {
  it('sends a 6-digit code valid 10 minutes; the code back verifies the address, once', async () => {
    const { key } = await person();
    const email = await addEmail(key);
    const started = Date.now();
    const { code, expiresAt, mail } = await codeFor(key, email);
    expect(mail.subject).toBe('Your verification code');
    expect(code).toMatch(/^\d{6}$/);
    expect(Date.parse(expiresAt) - started).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(expiresAt) - started).toBeLessThanOrEqual(10 * 60_000 + 5_000);

    const ok = await verify(key, email.id, code.slice(0, 3) + ' ' + code.slice(3));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, identifier: { id: email.id, value: email.value, verified: true } });
    const listed = (await call(app(), '/identifiers?type=email', { key })).body.identifiers.find((i: { id: string }) => i.id === email.id);
    expect(listed.verified).toBe(true);
    // A verified address has nothing left to prove.
    expect((await call(app(), `/identifiers/${email.id}/verification`, { key, method: 'POST' })).body.error_code).toBe('already_verified');
  });

  it('a wrong code is 400 invalid_code and verifies nothing', async () => {
    const { key } = await person();
    const email = await addEmail(key);
    const { code } = await codeFor(key, email);
    const res = await verify(key, email.id, wrong(code));
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('invalid_code');
    expect((await call(app(), '/identifiers', { key })).body.identifiers.find((i: { id: string }) => i.id === email.id).verified).toBe(false);
    // The right one still works after a wrong try.
    expect((await verify(key, email.id, code)).status).toBe(200);
  });

  it('an expired code is 400 invalid_code', async () => {
    const { key } = await person();
    const email = await addEmail(key);
    const { code } = await codeFor(key, email);
    // Ten minutes pass.
    await app().database.db.update(identifierVerifications).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(identifierVerifications.identifierId, email.id));
    const res = await verify(key, email.id, code);
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('invalid_code');
  });

  it('after 5 wrong codes the code is spent, even the right one fails; a new code does not bring the tries back within the window', async () => {
    const { key } = await person();
    const email = await addEmail(key);
    const { code } = await codeFor(key, email);
    for (let i = 0; i < 5; i++) expect((await verify(key, email.id, wrong(code))).body.error_code).toBe('invalid_code');
    const spent = await verify(key, email.id, code);
    expect(spent.status).toBe(400);
    expect(spent.body).toMatchObject({ error_code: 'invalid_code', error: expect.stringMatching(/new code/) });
    // The tries are the address's (issue 40): a new code within the window is refused too (tests/identifiers/pumping.int.test.ts).
    const fresh = await codeFor(key, email);
    expect((await verify(key, email.id, fresh.code)).status).toBe(400);
  });

  it('another user’s identifier is 404 for both calls, with nothing sent', async () => {
    const owner = await person();
    const other = await person(owner.acct);
    const email = await addEmail(owner.key);
    const before = inbox.length;
    expect((await call(app(), `/identifiers/${email.id}/verification`, { key: other.key, method: 'POST' })).status).toBe(404);
    expect((await call(app(), `/identifiers/${email.id}/verification`, { key: owner.acct.key, as: other.u.email, method: 'POST' })).status).toBe(404);
    expect((await verify(other.key, email.id, '123456')).status).toBe(404);
    expect(inbox.length).toBe(before);
  });

  it('the code is never in the database in clear: not in its row, not in the outbox copy of the mail', async () => {
    const { key } = await person();
    const email = await addEmail(key);
    const { code } = await codeFor(key, email);
    const { rows } = await app().database.pool.query('SELECT * FROM identifier_verifications WHERE identifier_id = $1', [email.id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(rows[0].code_hash).toMatch(/^[0-9a-f]{64}$/);
    const outbox = await app().database.db.select().from(mailOutbox).where(eq(mailOutbox.to, email.value));
    expect(outbox.length).toBeGreaterThan(0);
    for (const m of outbox) expect(m.text).not.toContain(code);
  });

  it('asked too often for one address: 429 rate_limited', async () => {
    const { key } = await person();
    const email = await addEmail(key);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(app(), `/identifiers/${email.id}/verification`, { key, method: 'POST' })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('a phone answers 409 sms_not_configured until the SMS channel exists', async () => {
    const { key } = await person();
    const phone = await call(app(), '/identifiers', { key, body: { type: 'phone', value: '+442071838750' } });
    const res = await call(app(), `/identifiers/${phone.body.identifier.id}/verification`, { key, method: 'POST' });
    expect(res.status).toBe(409);
    expect(res.body.error_code).toBe('sms_not_configured');
  });

  it('a malformed code is 400 naming the field', async () => {
    const { key } = await person();
    const email = await addEmail(key);
    const res = await verify(key, email.id, '12ab');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('code');
  });
});
