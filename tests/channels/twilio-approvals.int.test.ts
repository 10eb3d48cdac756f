import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistants, auditEvents, carts, inboundTexts, phoneLines, users } from '@/db/schema';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { offerApprovalByText } from '@/server/messaging/text-approvals';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { type TwilioFake } from '../helpers/twilio-fake';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * Approvals by text: the owner who chose it gets the waiting cart by SMS with a short code bound to
 * the cart's contentHash. "YES <code>" from the owner's verified number approves exactly that
 * version (the email goes out); from another number it is nobody's decision; after an edit the
 * code refuses and nothing is sent; "NO <code>" rejects.
 */

const h = useCartHarness();
const twilio = useTwilioFake('+1646555', (f) => {
  f.state.smsUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/messages`;
});
const { nextNumber } = twilio;
let fake: TwilioFake;
beforeAll(() => {
  fake = twilio.fake;
});

async function approver() {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const phone = nextNumber();
  expect((await call(h.app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } })).status).toBe(201);
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { sms: true } } });
  const line = nextNumber();
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line });
  await h.db().update(assistants).set({ talkToStrangers: false }).where(eq(assistants.id, p.assistantId));
  // No undo window: an approved email goes at once.
  await h.cells(p, { email_as_assistant: { undoDelaySec: 0 } });
  // The user chooses approvals by text, as any preference.
  const set = await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { approvalsByText: true } } } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  expect(set.body.user.preferences.notifications).toMatchObject({ approvalsByText: true, channel: 'email' });
  return { ...p, phone, line };
}
type Approver = Awaited<ReturnType<typeof approver>>;

/** A cart waiting for the owner, offered by text: its id and the code the text carried. */
async function offered(p: Approver, subject: string) {
  const { runId } = await h.stagingRun(p, [emailCall({ subject })], { approvalMode: 'manual' });
  const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['pending_approval']);
  // The cart's notification step texts it (inngest cart-notify), once.
  const text = await h.until(async () => fake.sentTo(p.phone).find((m) => (m.body ?? '').includes(subject)) ?? null, 10_000);
  expect(await offerApprovalByText(h.db(), cart.id)).toEqual({ sent: false, reason: 'already_offered' });
  expect(fake.sentTo(p.phone).filter((m) => (m.body ?? '').includes(subject))).toHaveLength(1);
  expect(text.from).toBe(p.line);
  expect(text.body).toContain(subject);
  const code = /Reply YES (\d{4}) to send, NO \1 to reject/.exec(text.body ?? '')![1]!;
  return { cart, code };
}

const decisionTextTo = (p: Approver, re: RegExp) => h.until(async () => fake.sentTo(p.phone).find((m) => re.test(m.body ?? '')) ?? null, 10_000);

describe('approvals by text', () => {
  it('"YES <code>" from another number decides nothing; from the owner’s verified number it approves that version and the email goes out', async () => {
    const p = await approver();
    const { cart, code } = await offered(p, 'Dinner on Friday');

    const intruder = await fake.inbound({ from: nextNumber(), to: p.line, body: `YES ${code}` });
    expect(intruder.status).toBe(200);
    expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, intruder.messageSid)))[0]).toMatchObject({ status: 'chat', reason: 'stranger_kept' });
    await h.settle(500);
    expect((await h.cartRow(cart.id))!.status).toBe('pending_approval');

    const yes = await fake.inbound({ from: p.phone, to: p.line, body: `yes ${code}` });
    expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, yes.messageSid)))[0]).toMatchObject({ status: 'approval', reason: 'approval_approved' });
    expect((await h.cartReaches(cart.id, ['executed'])).resolvedByUserId).toBe(p.id);
    await h.until(async () => h.mails().find((m) => m.parsed.subject === 'Dinner on Friday') ?? null, 10_000);
    await decisionTextTo(p, /^Approved/);
    const [audit] = await h.db().select().from(auditEvents).where(eq(auditEvents.targetId, cart.id));
    expect(audit).toMatchObject({ action: 'cart.approved', actorType: 'user', actorId: p.id });
    expect(audit!.changes?.after).toMatchObject({ via: 'text_code', contentHash: cart.contentHash });

    // Single use: the same code again is only a message.
    h.state.llm.enqueue({ text: 'It was already sent.' });
    const again = await fake.inbound({ from: p.phone, to: p.line, body: `YES ${code}` });
    expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, again.messageSid)))[0]).toMatchObject({ status: 'chat' });
  });

  it('after an edit the code refuses and nothing is sent; "NO <code>" rejects', async () => {
    const p = await approver();
    const { cart, code } = await offered(p, 'Lunch on Monday');
    const edited = await call(h.app(), `/portal/carts/${cart.id}/dispatches/0/edit`, { method: 'PATCH', key: p.key, body: { body: 'Hi Bob, lunch on Tuesday instead?' } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const yes = await fake.inbound({ from: p.phone, to: p.line, body: `YES ${code}` });
    expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, yes.messageSid)))[0]).toMatchObject({ status: 'approval', reason: 'approval_refused' });
    await decisionTextTo(p, /changed after the code was sent/);
    await h.settle(500);
    expect((await h.cartRow(cart.id))!.status).toBe('pending_approval');
    expect(h.mails().filter((m) => m.parsed.subject === 'Lunch on Monday')).toEqual([]);

    const other = await offered(p, 'Tea on Wednesday');
    await fake.inbound({ from: p.phone, to: p.line, body: `NO ${other.code}` });
    expect((await h.cartReaches(other.cart.id, ['rejected'])).reason).toBe('Rejected by text');
    await decisionTextTo(p, /^Rejected/);
  });

  it('after 10 wrong codes in an hour no code decides, not even the right one: 4 digits are not guessed through', async () => {
    const p = await approver();
    const { cart, code } = await offered(p, 'Concert tickets');
    const wrong = Array.from({ length: 10 }, (_, i) => String((Number(code) + 1 + i) % 10_000).padStart(4, '0'));
    for (const guess of wrong) {
      const sent = await fake.inbound({ from: p.phone, to: p.line, body: `YES ${guess}` });
      // A wrong code is no decision: the text is a message of the conversation.
      expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, sent.messageSid)))[0]!.status).not.toBe('approval');
    }
    const right = await fake.inbound({ from: p.phone, to: p.line, body: `YES ${code}` });
    expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, right.messageSid)))[0]).toMatchObject({ status: 'approval', reason: 'approval_refused' });
    await decisionTextTo(p, /^Too many wrong codes/);
    await h.settle(300);
    expect((await h.cartRow(cart.id))!.status).toBe('pending_approval');
    expect(h.mails().filter((m) => m.parsed.subject === 'Concert tickets')).toEqual([]);
  });

  it('no code is texted without the assistant’s own line (a YES to Steward’s own sender would reach nobody); a shared assistant’s line texts it, and the person’s YES decides', async () => {
    const saved = process.env.STEWARD_TWILIO_SMS_FROM;
    process.env.STEWARD_TWILIO_SMS_FROM = nextNumber();
    try {
      const acct = await newAccount(h.app());
      const p = await h.person(acct);
      const phone = nextNumber();
      expect((await call(h.app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } })).status).toBe(201);
      await h.cells(p, { email_as_assistant: { undoDelaySec: 0 } });
      expect((await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { approvalsByText: true } } } })).status).toBe(200);
      const { runId } = await h.stagingRun(p, [emailCall({ subject: 'Flowers for Ana' })], { approvalMode: 'manual' });
      const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['pending_approval']);
      expect(await offerApprovalByText(h.db(), cart.id)).toEqual({ sent: false, reason: 'no_sms_line' });
      await h.settle(500);
      expect(fake.sentTo(phone)).toEqual([]);

      // The account's front-desk assistant (no single owner) staged it, and has a line.
      const [desk] = await h.db().insert(assistants).values({ accountId: acct.accountId, scope: 'account', name: 'Front desk' }).returning();
      const line = nextNumber();
      await h.db().insert(phoneLines).values({ accountId: acct.accountId, assistantId: desk!.id, number: line, channels: ['sms'], source: 'operator' });
      await h.db().update(carts).set({ assistantId: desk!.id }).where(eq(carts.id, cart.id));
      const offer = await offerApprovalByText(h.db(), cart.id);
      expect(offer.sent).toBe(true);
      const text = await h.until(async () => fake.sentTo(phone).find((m) => (m.body ?? '').includes('Flowers for Ana')) ?? null, 10_000);
      expect(text.from).toBe(line);
      const code = (offer as { code: string }).code;

      // Someone else's number decides nothing; the person's verified number does.
      await fake.inbound({ from: nextNumber(), to: line, body: `YES ${code}` });
      await h.settle(300);
      expect((await h.cartRow(cart.id))!.status).toBe('pending_approval');
      const yes = await fake.inbound({ from: phone, to: line, body: `YES ${code}` });
      expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, yes.messageSid)))[0]).toMatchObject({ status: 'approval', reason: 'approval_approved' });
      expect((await h.cartReaches(cart.id, ['executed'])).resolvedByUserId).toBe(p.id);
    } finally {
      if (saved === undefined) delete process.env.STEWARD_TWILIO_SMS_FROM;
      else process.env.STEWARD_TWILIO_SMS_FROM = saved;
    }
  });
});
