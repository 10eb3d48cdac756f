import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistants, inboundTexts } from '@/db/schema';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { type TwilioFake } from '../helpers/twilio-fake';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * Approvals by text from a spoofed number (issue 40, "not yet tried"): "YES <code>" decides a cart
 * only when Twilio signed the webhook, the text comes from the owner's verified number the code
 * was texted to, and it reaches the line that texted it. An unsigned or badly signed webhook
 * claiming the owner's number is 403 and stores nothing; another number (caller-id spoofing that
 * got past the carrier) decides nothing (tests/channels/twilio-approvals.int.test.ts holds that
 * too); the owner's number writing to another line of theirs decides nothing either.
 */

const h = useCartHarness();
const twilio = useTwilioFake('+1646577', (f) => {
  f.state.smsUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/messages`;
});
let fake: TwilioFake;
beforeAll(() => {
  fake = twilio.fake;
});

async function line(p: { key: string }) {
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { sms: true } } });
  expect(request.status, JSON.stringify(request.body)).toBeLessThan(300);
  const number = twilio.nextNumber();
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number });
  return number;
}

describe('approvals by text', () => {
  it('decide only when signed, from the owner’s number the code went to, to the line that sent it', async () => {
    const acct = await newAccount(h.app());
    const p = await h.person(acct);
    const phone = twilio.nextNumber();
    expect((await call(h.app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } })).status).toBe(201);
    const lines = [await line(p), await line(p)];
    await h.db().update(assistants).set({ talkToStrangers: false }).where(eq(assistants.id, p.assistantId));
    await h.cells(p, { email_as_assistant: { undoDelaySec: 0 } });
    expect((await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { approvalsByText: true } } } })).status).toBe(200);

    const { runId } = await h.stagingRun(p, [emailCall({ subject: 'Pay the invoice' })], { approvalMode: 'manual' });
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['pending_approval']);
    const text = await h.until(async () => fake.sentTo(phone).find((m) => (m.body ?? '').includes('Pay the invoice')) ?? null, 10_000);
    const code = /Reply YES (\d{4})/.exec(text.body ?? '')![1]!;
    const sender = text.from!;
    expect(lines).toContain(sender);
    const otherLine = lines.find((l) => l !== sender)!;
    const outcome = async (sid: string) => (await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, sid)))[0];

    // Not signed by Twilio, or signed with anything else: 403, nothing stored, nothing decided.
    const unsigned = await fake.inbound({ from: phone, to: sender, body: `YES ${code}` }, null);
    expect(unsigned.status).toBe(403);
    const forged = await fake.inbound({ from: phone, to: sender, body: `YES ${code}` }, 'aGVsbG8gd29ybGQgdGhpcyBpcyBmb3JnZWQ=');
    expect(forged.status).toBe(403);
    expect(await outcome(unsigned.messageSid)).toBeUndefined();

    // Signed, but from a number that is not the owner's.
    const spoofed = await fake.inbound({ from: twilio.nextNumber(), to: sender, body: `YES ${code}` });
    expect((await outcome(spoofed.messageSid))!.status).not.toBe('approval');
    // The owner's own number, to another of their lines: the code was not texted from there.
    const elsewhere = await fake.inbound({ from: phone, to: otherLine, body: `YES ${code}` });
    expect(elsewhere.status).toBe(200);
    expect((await outcome(elsewhere.messageSid))!.status).not.toBe('approval');
    await h.settle(600);
    expect((await h.cartRow(cart.id)).status).toBe('pending_approval');

    // From the owner's number to the line that texted the code: approved, and the email goes.
    const yes = await fake.inbound({ from: phone, to: sender, body: `YES ${code}` });
    expect(await outcome(yes.messageSid)).toMatchObject({ status: 'approval', reason: 'approval_approved' });
    expect((await h.cartReaches(cart.id, ['executed'])).resolvedByUserId).toBe(p.id);
  });
});
