import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistants, identifiers, notices } from '@/db/schema';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { issueCode } from '@/server/identifiers/verification';
import { createNotice } from '@/server/notices/create';
import { deliverNotice } from '@/server/notices/deliver';
import { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { startSendblueFake, type SendblueFake } from '../helpers/sendblue-fake';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * Issue 46: a phone identifier's `iMessageCapable`, `whatsAppCapable` and `preferredTextPlatform`
 * (spec 1, Identifiers) are written and used. A number becoming verified is looked up with
 * Sendblue's number lookup (a loopback Sendblue answering GET /api/evaluate-service); a WhatsApp
 * message or an iMessage from the number marks it; the person chooses the platform among those
 * the number uses (PATCH /identifiers/{id}); a notice by text goes by it.
 */

const h = useCartHarness();
const twilio = useTwilioFake('+1646591', (f) => {
  f.state.smsUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/messages`;
});
const { nextNumber } = twilio;
let sb: SendblueFake;
const saved: Record<string, string | undefined> = {};
const setEnv = (vars: Record<string, string | undefined>) => {
  for (const [k, v] of Object.entries(vars)) {
    if (!(k in saved)) saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
};

beforeAll(async () => {
  sb = await startSendblueFake();
  setEnv({ ...sb.env, STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.0/8' });
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await sb?.close();
});

const phoneOf = async (key: string, id: string) => (await call(h.app(), '/identifiers?type=phone', { key })).body.identifiers.find((i: { id: string }) => i.id === id);

/** A user with their own assistant; `phone` added as they add it (unverified), by their user key. */
async function withPhone() {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const phone = nextNumber();
  const added = await call(h.app(), '/identifiers', { key: p.key, body: { type: 'phone', value: phone } });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return { ...p, acct, phone, identifierId: added.body.identifier.id as string };
}

/** Verifies through the endpoint with a code issued as the SMS flow would (no phone to read it from). */
async function verify(p: { key: string; id: string; acct: { accountId: string } }, identifierId: string) {
  const { code } = await issueCode(h.db(), { id: identifierId, accountId: p.acct.accountId, userId: p.id });
  const res = await call(h.app(), `/identifiers/${identifierId}/verify`, { key: p.key, body: { code } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.identifier;
}

describe('the number lookup when a phone becomes verified', () => {
  it('a verified number is looked up with Sendblue: iMessage makes iMessageCapable true, SMS false; an unverified one is not looked up', async () => {
    const a = await withPhone();
    sb.services.set(a.phone, 'iMessage');
    expect(sb.lookups).not.toContain(a.phone);
    expect((await phoneOf(a.key, a.identifierId)).iMessageCapable).toBe(false);
    const verified = await verify(a, a.identifierId);
    expect(verified).toMatchObject({ verified: true, iMessageCapable: true });
    expect(sb.lookups).toContain(a.phone);
    expect(await phoneOf(a.key, a.identifierId)).toMatchObject({ iMessageCapable: true });

    const b = await withPhone();
    await verify(b, b.identifierId);
    expect(sb.lookups).toContain(b.phone);
    const [row] = await h.db().select().from(identifiers).where(eq(identifiers.id, b.identifierId));
    expect(row!.iMessageCapable).toBe(false);
  });

  it('a phone an account key adds as verified is looked up too; without Sendblue configured nothing is asked and the flag stays unknown', async () => {
    const acct = await newAccount(h.app());
    const p = await h.person(acct);
    const phone = nextNumber();
    sb.services.set(phone, 'iMessage');
    const added = await call(h.app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } });
    expect(added.status).toBe(201);
    expect(added.body.identifier).toMatchObject({ verified: true, iMessageCapable: true });

    const c = await withPhone();
    sb.services.set(c.phone, 'iMessage');
    setEnv({ SENDBLUE_API_KEY: undefined });
    try {
      await verify(c, c.identifierId);
    } finally {
      setEnv({ SENDBLUE_API_KEY: sb.env.SENDBLUE_API_KEY });
    }
    expect(sb.lookups).not.toContain(c.phone);
    const [row] = await h.db().select().from(identifiers).where(eq(identifiers.id, c.identifierId));
    expect(row!.iMessageCapable).toBeNull();
  });
});

/** A user with a verified phone, and an assistant line on SMS, WhatsApp and iMessage. */
async function texter() {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const phone = nextNumber();
  const added = await call(h.app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } });
  expect(added.status).toBe(201);
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { sms: true, whatsapp: true, imessage: true } } });
  expect(request.status, JSON.stringify(request.body)).toBe(201);
  const line = nextNumber();
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line });
  await h.db().update(assistants).set({ talkToStrangers: false }).where(eq(assistants.id, p.assistantId));
  return { ...p, acct, phone, line, identifierId: added.body.identifier.id as string };
}

const patch = (key: string, id: string, body: unknown) => call(h.app(), `/identifiers/${id}`, { method: 'PATCH', key, body });

describe('what messages from the number prove, and the platform the person chooses', () => {
  it('a WhatsApp message sets whatsAppCapable, an iMessage sets iMessageCapable; only then can the person choose them', async () => {
    const p = await texter();
    expect(await phoneOf(p.key, p.identifierId)).toMatchObject({ whatsAppCapable: false, iMessageCapable: false, preferredTextPlatform: null });

    // Not yet seen on WhatsApp or iMessage: 400 naming the field, and nothing changes.
    const early = await patch(p.key, p.identifierId, { preferredTextPlatform: 'whatsapp' });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/^preferredTextPlatform: .*WhatsApp/);
    expect((await patch(p.key, p.identifierId, { preferredTextPlatform: 'imessage' })).status).toBe(400);
    expect((await patch(p.key, p.identifierId, { preferredTextPlatform: 'fax' })).status).toBe(400);
    expect((await phoneOf(p.key, p.identifierId)).preferredTextPlatform).toBeNull();
    // SMS needs nothing more than the verified number.
    expect((await patch(p.key, p.identifierId, { preferredTextPlatform: 'sms' })).body.identifier).toMatchObject({ preferredTextPlatform: 'sms' });

    const wrote = await twilio.fake.inbound({ from: p.phone, to: p.line, body: 'Hi on WhatsApp', whatsapp: true });
    expect(wrote.status).toBe(200);
    expect(await phoneOf(p.key, p.identifierId)).toMatchObject({ whatsAppCapable: true, iMessageCapable: false });
    expect((await sb.receive({ content: 'Hi on iMessage', from_number: p.phone, sendblue_number: p.line })).status).toBe(204);
    expect(await phoneOf(p.key, p.identifierId)).toMatchObject({ whatsAppCapable: true, iMessageCapable: true });

    const chosen = await patch(p.key, p.identifierId, { preferredTextPlatform: 'whatsapp' });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body.identifier).toMatchObject({ preferredTextPlatform: 'whatsapp' });
    expect((await patch(p.key, p.identifierId, { preferredTextPlatform: 'imessage' })).status).toBe(200);
    // The person cannot claim a capability themselves; null clears the choice.
    expect((await patch(p.key, p.identifierId, { whatsAppCapable: true })).status).toBe(400);
    expect((await patch(p.key, p.identifierId, { preferredTextPlatform: null })).body.identifier).toMatchObject({ preferredTextPlatform: null });
  });

  it('an unverified number or an email has no platform to choose; another user’s identifier is 404', async () => {
    const a = await withPhone();
    const unverified = await patch(a.key, a.identifierId, { preferredTextPlatform: 'sms' });
    expect(unverified.status).toBe(400);
    expect(unverified.body.error).toMatch(/^preferredTextPlatform: verify this number first/);
    const [email] = (await call(h.app(), '/identifiers?type=email', { key: a.key })).body.identifiers;
    expect((await patch(a.key, email.id, { preferredTextPlatform: 'sms' })).status).toBe(400);
    const other = await texter();
    expect((await patch(a.key, other.identifierId, { preferredTextPlatform: 'sms' })).status).toBe(404);
    expect((await phoneOf(other.key, other.identifierId)).preferredTextPlatform).toBeNull();
  });

  it('a notice by text goes by the number’s preferred platform: WhatsApp rather than SMS', async () => {
    const p = await texter();
    const set = await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { channel: 'sms', quietHours: false } } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await twilio.fake.inbound({ from: p.phone, to: p.line, body: 'Hello', whatsapp: true });
    expect((await patch(p.key, p.identifierId, { preferredTextPlatform: 'whatsapp' })).status).toBe(200);
    const before = twilio.fake.sentTo(p.phone).length;

    const notice = await h.db().transaction((tx) =>
      createNotice(tx, { accountId: p.acct.accountId, userId: p.id, kind: 'phone_line', dedupeKey: `sweep-46:${p.id}`, subject: 'Your number is ready', text: 'It works.', linkPath: '/' }),
    );
    expect(notice).toMatchObject({ channel: 'whatsapp' });
    await deliverNotice(h.db(), notice!.id);
    const sent = await h.until(async () => twilio.fake.sentTo(p.phone).slice(before).find((m) => String(m.body).startsWith('Your number is ready')) ?? null, 10_000);
    expect(sent).toMatchObject({ to: `whatsapp:${p.phone}`, from: `whatsapp:${p.line}` });
    const [row] = await h.db().select().from(notices).where(eq(notices.id, notice!.id));
    expect(row).toMatchObject({ status: 'sent', channel: 'whatsapp' });
  });

  it('a notice by text skips a number of the owner that replied STOP and goes to their next verified number', async () => {
    const p = await texter();
    const second = nextNumber();
    const added = await call(h.app(), '/identifiers', { key: p.acct.key, body: { type: 'phone', value: second, userId: p.id, verified: true } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect((await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { channel: 'sms', quietHours: false } } } })).status).toBe(200);
    // The first number (the primary, tried first) opts out of the line.
    expect((await twilio.fake.inbound({ from: p.phone, to: p.line, body: 'STOP' })).status).toBe(200);
    const [before, beforeSecond] = [twilio.fake.sentTo(p.phone).length, twilio.fake.sentTo(second).length];

    const notice = await h.db().transaction((tx) =>
      createNotice(tx, { accountId: p.acct.accountId, userId: p.id, kind: 'phone_line', dedupeKey: `stop-next:${p.id}`, subject: 'Your number is ready', text: 'It works.', linkPath: '/' }),
    );
    expect(notice).toMatchObject({ channel: 'sms' });
    await deliverNotice(h.db(), notice!.id);
    const sent = await h.until(async () => twilio.fake.sentTo(second).slice(beforeSecond).find((m) => String(m.body).startsWith('Your number is ready')) ?? null, 10_000);
    expect(sent).toMatchObject({ to: second, from: p.line });
    expect(twilio.fake.sentTo(p.phone).slice(before)).toEqual([]);
    const [row] = await h.db().select().from(notices).where(eq(notices.id, notice!.id));
    expect(row).toMatchObject({ status: 'sent', channel: 'sms' });
  });
});
