import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assistants, phoneLineRequests, phoneLines } from '@/db/schema';
import { PURCHASE_ATTEMPTS, retryDelayMs } from '@/server/channels/phone-line-purchase';
import { retryDuePurchases } from '@/server/channels/phone-lines';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * Issue 46, second part: a failed Twilio purchase (STEWARD_TWILIO_PROVISION=1) is tried again by
 * the phone-line-purchases sweep, further apart each time, and stops after the last attempt
 * (the request then waits for the operator). The stand-in refuses while it has no number to sell.
 */
const app = useTestServer();
const twilio = useTwilioFake('+1416777', (f) => {
  f.state.available = [];
});
const db = () => app().database.db;
const minutes = (n: number) => n * 60_000;

async function requestLine(channels: Record<string, boolean>) {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: `Line ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}` } });
  expect(hired.status).toBeLessThan(300);
  const res = await call(app(), '/phone-line-requests', { key, body: { requestedChannels: channels } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { key, assistantId: hired.body.assistant.id as string, requestId: res.body.request.id as string, status: res.body.request.status as string };
}

const request = async (id: string) => (await db().select().from(phoneLineRequests).where(eq(phoneLineRequests.id, id)))[0]!;

describe('a failed number purchase', () => {
  it('is tried again with backoff until Twilio sells one, then the line is the assistant’s', async () => {
    process.env.STEWARD_TWILIO_PROVISION = '1';
    try {
      twilio.fake.state.available = [];
      const r = await requestLine({ sms: true, voice: true });
      expect(r.status).toBe('pending');
      const first = await request(r.requestId);
      expect(first).toMatchObject({ purchaseAttempts: 1, lastPurchaseError: expect.stringContaining('no number available') });
      const due = first.nextPurchaseAt!;
      expect(due.getTime() - first.createdAt.getTime()).toBeGreaterThanOrEqual(minutes(5) - 1_000);

      // Not due yet: nothing is tried.
      expect(await retryDuePurchases(db(), new Date(due.getTime() - 1_000))).toEqual({ bought: 0, failed: 0 });
      // Due, still nothing to sell: the next attempt is twice as far.
      const second = new Date(due.getTime() + 1_000);
      expect(await retryDuePurchases(db(), second)).toEqual({ bought: 0, failed: 1 });
      const after = await request(r.requestId);
      expect(after.purchaseAttempts).toBe(2);
      expect(after.nextPurchaseAt!.getTime() - second.getTime()).toBe(minutes(10));

      twilio.fake.state.available = ['+14165550123'];
      expect(await retryDuePurchases(db(), new Date(after.nextPurchaseAt!.getTime() + 1_000))).toEqual({ bought: 1, failed: 0 });
      expect(await request(r.requestId)).toMatchObject({ status: 'fulfilled', purchaseAttempts: 3 });
      const [line] = await db().select().from(phoneLines).where(eq(phoneLines.assistantId, r.assistantId));
      expect(line).toMatchObject({ number: '+14165550123', source: 'twilio' });
      const shown = await call(app(), `/assistants/${r.assistantId}`, { key: r.key });
      expect(shown.body.assistant.channels).toMatchObject({ sms: '+14165550123', voice: { status: 'active' } });
    } finally {
      delete process.env.STEWARD_TWILIO_PROVISION;
    }
  });

  it('a number bought whose assignment failed is not bought again: the next attempt finds it at Twilio by the request’s name and assigns it', async () => {
    process.env.STEWARD_TWILIO_PROVISION = '1';
    try {
      twilio.fake.state.available = [];
      const r = await requestLine({ sms: true });
      const [assistant] = await db().select().from(assistants).where(eq(assistants.id, r.assistantId));
      // Something else holds the number Twilio will sell, so the first assignment fails after the purchase.
      const [blocking] = await db().insert(phoneLines).values({ accountId: assistant!.accountId, assistantId: r.assistantId, number: '+14165550777', source: 'operator' }).returning();
      twilio.fake.state.available = ['+14165550777', '+14165550778'];
      const first = await request(r.requestId);
      expect(await retryDuePurchases(db(), new Date(first.nextPurchaseAt!.getTime() + 1_000))).toEqual({ bought: 0, failed: 1 });
      const named = () => twilio.fake.bought.filter((b) => b.friendlyName === `steward:${r.requestId}`);
      expect(named().map((b) => b.phoneNumber)).toEqual(['+14165550777']);
      const failed = await request(r.requestId);
      expect(failed.status).toBe('pending');

      await db().update(phoneLines).set({ status: 'released', releasedAt: new Date() }).where(eq(phoneLines.id, blocking!.id));
      expect(await retryDuePurchases(db(), new Date(failed.nextPurchaseAt!.getTime() + 1_000))).toEqual({ bought: 1, failed: 0 });
      // Still one purchase for the request, and it is the line the assistant now has.
      expect(named().map((b) => b.phoneNumber)).toEqual(['+14165550777']);
      expect(twilio.fake.state.available).toContain('+14165550778');
      expect(await request(r.requestId)).toMatchObject({ status: 'fulfilled' });
      const lines = await db().select().from(phoneLines).where(eq(phoneLines.assistantId, r.assistantId));
      expect(lines.find((l) => l.status === 'active')).toMatchObject({ number: '+14165550777', source: 'twilio', providerSid: named()[0]!.sid });
    } finally {
      delete process.env.STEWARD_TWILIO_PROVISION;
    }
  });

  it('stops after the last attempt: the request waits for the operator', async () => {
    expect(retryDelayMs(PURCHASE_ATTEMPTS)).toBeNull();
    process.env.STEWARD_TWILIO_PROVISION = '1';
    try {
      twilio.fake.state.available = [];
      const r = await requestLine({ sms: true });
      let at = Date.now();
      for (let n = 2; n <= PURCHASE_ATTEMPTS; n++) {
        at = (await request(r.requestId)).nextPurchaseAt!.getTime() + 1_000;
        expect(await retryDuePurchases(db(), new Date(at))).toEqual({ bought: 0, failed: 1 });
      }
      expect(await request(r.requestId)).toMatchObject({ status: 'pending', purchaseAttempts: PURCHASE_ATTEMPTS, nextPurchaseAt: null });
      twilio.fake.state.available = ['+14165550124'];
      expect(await retryDuePurchases(db(), new Date(at + 365 * 86_400_000))).toEqual({ bought: 0, failed: 0 });
      expect((await request(r.requestId)).status).toBe('pending');
    } finally {
      delete process.env.STEWARD_TWILIO_PROVISION;
    }
  });
});
