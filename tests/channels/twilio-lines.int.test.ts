import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifierVerifications, notices, outboundTexts, phoneLines } from '@/db/schema';
import { validTwilioSignature, twilioSignature as stewardSignature } from '@/server/channels/twilio/signature';
import { admin } from '../helpers/admin-cli';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { startTwilioFake, twilioSignature, type TwilioFake } from '../helpers/twilio-fake';

/*
 * Phone lines that get fulfilled (by the operator's assign-phone-line, or by buying a number
 * through Twilio's AvailablePhoneNumbers / IncomingPhoneNumbers when STEWARD_TWILIO_PROVISION=1)
 * and show on the assistant; phone identifiers verified by a one-time code sent by SMS (wrong,
 * expired and exhausted codes); Twilio's signature rule on its documented example.
 */

const app = useTestServer();
let fake: TwilioFake;
const saved: Record<string, string | undefined> = {};
const SMS_FROM = '+14155550199';

beforeAll(async () => {
  fake = await startTwilioFake();
  for (const [k, v] of Object.entries({ ...fake.env(), STEWARD_TWILIO_SMS_FROM: SMS_FROM })) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  delete process.env.STEWARD_TWILIO_PROVISION;
  await fake?.close();
});

async function userWithAssistant() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: `Line ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}` } });
  expect(hired.status).toBeLessThan(300);
  return { acct, u, key, assistantId: hired.body.assistant.id as string };
}

describe('the X-Twilio-Signature rule', () => {
  it('matches Twilio’s documented example, and the stand-in signs the same way', () => {
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    const params: Array<[string, string]> = [
      ['CallSid', 'CA1234567890ABCDE'],
      ['Caller', '+12349013030'],
      ['Digits', '1234'],
      ['From', '+12349013030'],
      ['To', '+18005551212'],
    ];
    expect(stewardSignature('12345', url, params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    expect(twilioSignature('12345', url, params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    expect(validTwilioSignature('12345', url, params, '0/KCTR6DLpKmkAf8muzZqo1nDgQ=')).toBe(true);
    expect(validTwilioSignature('12345', url, [...params, ['Extra', '1']], '0/KCTR6DLpKmkAf8muzZqo1nDgQ=')).toBe(false);
    expect(validTwilioSignature('12345', url, params, null)).toBe(false);
  });
});

describe('phone lines', () => {
  it('assign-phone-line fulfils the request: the assistant’s channels show the number and the user gets a notice; dismiss-phone-line closes one', async () => {
    const { u, key, assistantId } = await userWithAssistant();
    const request = await call(app(), '/phone-line-requests', { key, body: { requestedChannels: { sms: true, imessage: true, voice: true } } });
    expect(request.status).toBe(201);
    const url = app().database.pool.options.connectionString as string;
    const assigned = await admin(url, 'assign-phone-line', '--request', request.body.request.id, '--number', '+1 415 555 0142', '--channels', 'sms,imessage,voice');
    expect(assigned.code, assigned.stdout).toBe(0);
    expect(assigned.out).toMatchObject({ request: { id: request.body.request.id, status: 'fulfilled' }, line: { number: '+14155550142', channels: ['sms', 'imessage', 'voice'] } });

    const listed = await call(app(), '/assistants', { key });
    const mine = listed.body.assistants.find((a: { id: string }) => a.id === assistantId);
    expect(mine.channels).toMatchObject({ sms: '+14155550142', imessage: '+14155550142', whatsapp: null, voice: { status: 'active' } });
    expect((await call(app(), '/phone-line-requests/mine', { key })).body.request.status).toBe('fulfilled');
    const [notice] = await app().database.db.select().from(notices).where(eq(notices.userId, u.id));
    expect(notice).toMatchObject({ kind: 'phone_line', subject: expect.stringContaining('+14155550142') });

    // Again: the request is no longer pending.
    const twice = await admin(url, 'assign-phone-line', '--request', request.body.request.id, '--number', '+14155550143');
    expect(twice.code).not.toBe(0);
    expect(twice.out).toMatchObject({ ok: false, error_code: 'request_not_pending' });

    const other = await userWithAssistant();
    const second = await call(app(), '/phone-line-requests', { key: other.key, body: { requestedChannels: { sms: true } } });
    // The same number cannot serve two lines.
    const taken = await admin(url, 'assign-phone-line', '--request', second.body.request.id, '--number', '+14155550142');
    expect(taken.out).toMatchObject({ ok: false, error_code: 'number_in_use' });
    const dismissed = await admin(url, 'dismiss-phone-line', '--request', second.body.request.id, '--reason', 'No numbers in that area');
    expect(dismissed.out).toMatchObject({ request: { status: 'dismissed', dismissalReason: 'No numbers in that area' } });
  }, 90_000); // four admin CLI processes (npm, tsx, a migration check each), like the other admin CLI tests

  it('with STEWARD_TWILIO_PROVISION=1 a request buys a number (in the notes’ area code) pointed at Steward’s webhook', async () => {
    process.env.STEWARD_TWILIO_PROVISION = '1';
    try {
      fake.state.available = ['+12125550100', '+14155550177'];
      const { key, assistantId } = await userWithAssistant();
      const res = await call(app(), '/phone-line-requests', { key, body: { requestedChannels: { sms: true, whatsapp: true }, notes: 'area code 415 please' } });
      expect(res.status).toBe(201);
      expect(res.body.request.status).toBe('fulfilled');
      expect(fake.bought.at(-1)).toMatchObject({ phoneNumber: '+14155550177', smsUrl: `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/messages` });
      const [line] = await app().database.db.select().from(phoneLines).where(eq(phoneLines.assistantId, assistantId));
      expect(line).toMatchObject({ number: '+14155550177', source: 'twilio', providerSid: fake.bought.at(-1)!.sid, channels: ['sms', 'whatsapp'] });
      const shown = await call(app(), `/assistants/${assistantId}`, { key });
      expect(shown.body.assistant.channels).toMatchObject({ sms: '+14155550177', whatsapp: '+14155550177' });
    } finally {
      delete process.env.STEWARD_TWILIO_PROVISION;
    }
  });
});

describe('phone verification by SMS', () => {
  async function phoneOf(key: string, value: string) {
    const res = await call(app(), '/identifiers', { key, body: { type: 'phone', value } });
    expect(res.status).toBe(201);
    return res.body.identifier.id as string;
  }
  const codeSentTo = (to: string, n = 0) => {
    const m = fake.sentTo(to)[n];
    return m ? /(\d{6})/.exec(m.body ?? '')![1]! : null;
  };

  it('sends a 6-digit code by SMS; a wrong code is refused; the right one verifies; the text is never kept', async () => {
    const { key } = await userWithAssistant();
    const id = await phoneOf(key, '+14155550211');
    const sent = await call(app(), `/identifiers/${id}/verification`, { key, method: 'POST' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.expiresAt).toBeTruthy();
    const code = codeSentTo('+14155550211')!;
    expect(fake.sentTo('+14155550211')[0]).toMatchObject({ from: SMS_FROM });
    const wrong = code === '000000' ? '111111' : '000000';
    const refused = await call(app(), `/identifiers/${id}/verify`, { key, body: { code: wrong } });
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe('invalid_code');
    const ok = await call(app(), `/identifiers/${id}/verify`, { key, body: { code } });
    expect(ok.status).toBe(200);
    expect(ok.body.identifier).toMatchObject({ verified: true, value: '+14155550211' });
    // What Steward keeps of the send names no code.
    const rows = await app().database.db.select().from(outboundTexts).where(eq(outboundTexts.toNumber, '+14155550211'));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('an expired code and an exhausted code are refused even when right; without Twilio a phone answers 409 sms_not_configured', async () => {
    const { key } = await userWithAssistant();
    const id = await phoneOf(key, '+14155550212');
    expect((await call(app(), `/identifiers/${id}/verification`, { key, method: 'POST' })).status).toBe(200);
    const code = codeSentTo('+14155550212')!;
    await app().database.db.update(identifierVerifications).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(identifierVerifications.identifierId, id));
    expect((await call(app(), `/identifiers/${id}/verify`, { key, body: { code } })).body.error_code).toBe('invalid_code');

    expect((await call(app(), `/identifiers/${id}/verification`, { key, method: 'POST' })).status).toBe(200);
    const fresh = codeSentTo('+14155550212', 1)!;
    const wrong = fresh === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await call(app(), `/identifiers/${id}/verify`, { key, body: { code: wrong } })).status).toBe(400);
    const exhausted = await call(app(), `/identifiers/${id}/verify`, { key, body: { code: fresh } });
    expect(exhausted.status).toBe(400);
    expect(exhausted.body.error).toMatch(/too many times/);

    const sid = process.env.TWILIO_ACCOUNT_SID;
    delete process.env.TWILIO_ACCOUNT_SID;
    try {
      const off = await call(app(), `/identifiers/${id}/verification`, { key, method: 'POST' });
      expect(off.status).toBe(409);
      expect(off.body.error_code).toBe('sms_not_configured');
    } finally {
      process.env.TWILIO_ACCOUNT_SID = sid;
    }
  });

  it('codes are rate-limited per identifier (429 after 5 in 15 minutes)', async () => {
    const { key } = await userWithAssistant();
    const id = await phoneOf(key, '+14155550213');
    for (let i = 0; i < 5; i++) expect((await call(app(), `/identifiers/${id}/verification`, { key, method: 'POST' })).status).toBe(200);
    const limited = await call(app(), `/identifiers/${id}/verification`, { key, method: 'POST' });
    expect(limited.status).toBe(429);
    expect(fake.sentTo('+14155550213')).toHaveLength(5);
  });
});
