import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistants, inboundTexts } from '@/db/schema';
import { portSender } from '@/server/channels/adapters';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { sendThroughPort, sendToOwner } from '@/server/channels/port-send';
import { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { type TwilioFake } from '../helpers/twilio-fake';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * The channel port's sending half (server/channels/adapter.ts SendingAdapter) on the texts
 * (server/channels/texts/adapter.ts), through the core's own calls (port-send.ts) against the
 * loopback Twilio: what a chat app's adapter is held to by the contract suite's sending checks, a
 * text adapter is held to here. The kind is said, never guessed; the core's `ref` names a send, so
 * the same send asked twice reaches the provider once; what a channel cannot carry is refused with
 * nothing sent; a reply answers the text it names from the number that text reached.
 */

const h = useCartHarness();
const twilio = useTwilioFake('+1646557', (f) => {
  f.state.smsUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/messages`;
});
const { nextNumber } = twilio;
let fake: TwilioFake;
beforeAll(() => {
  fake = twilio.fake;
});

/** A user with a verified number and an assistant whose line serves SMS and WhatsApp. */
async function texting() {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const phone = nextNumber();
  expect((await call(h.app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } })).status).toBe(201);
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { sms: true, whatsapp: true } } });
  const line = nextNumber();
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line });
  await h.db().update(assistants).set({ talkToStrangers: false }).where(eq(assistants.id, p.assistantId));
  return { ...p, acct, phone, line };
}

const to = (number: string, channel: 'sms' | 'whatsapp') => (channel === 'whatsapp' ? `whatsapp:${number}` : number);
const ref = () => `ref-${Math.random().toString(36).slice(2)}`;

describe.each(['sms', 'whatsapp'] as const)('the %s sending adapter', (channel) => {
  it('says what it is: no buttons, files by link, who reads a thread', () => {
    const adapter = portSender(channel)!;
    expect(adapter.channel).toBe(channel);
    expect(adapter.capabilities).toMatchObject({ files: true, fileLinks: true });
    expect(adapter.capabilities.buttons).toBeFalsy();
    expect(adapter.audienceOf('group:abc')).toMatchObject({ kind: 'room' });
    expect(adapter.audienceOf('+14155550100')).toEqual({ kind: 'direct', person: '+14155550100' });
  });

  it('a channel whose provider is not configured answers so before anything is read (iMessage: no Sendblue here)', async () => {
    const p = await h.person(await newAccount(h.app()));
    const before = fake.sent.length;
    expect(await sendThroughPort(h.db(), { channel: 'imessage', assistantId: p.assistantId, kind: 'dispatch', to: nextNumber(), text: 'Hi', ref: ref() })).toEqual({
      state: 'failed',
      providerMessageId: null,
      reason: 'no provider configured for imessage',
    });
    expect(fake.sent.length).toBe(before);
  });

  it('a reply answers the text it names, from the number that text reached; the same ref again reaches the provider once', async () => {
    const p = await texting();
    const stranger = nextNumber();
    const question = await fake.inbound({ from: stranger, to: p.line, body: 'Is Friday free?', whatsapp: channel === 'whatsapp' });
    expect(question.status).toBe(200);
    await h.until(async () => (await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, question.messageSid)))[0] ?? null);
    const send = { channel, assistantId: p.assistantId, kind: 'reply' as const, thread: question.messageSid, replyTo: question.messageSid, text: 'Friday is free.', ref: ref() };
    const first = await sendThroughPort(h.db(), send);
    expect(first).toMatchObject({ state: 'accepted', providerMessageId: expect.stringMatching(/^SM/) });
    const again = await sendThroughPort(h.db(), send);
    expect(again.providerMessageId).toBe(first.providerMessageId);
    expect(fake.sentTo(stranger)).toEqual([expect.objectContaining({ from: to(p.line, channel), body: 'Friday is free.' })]);

    // A reply must name the text it answers, and one it answers must be known.
    expect(await sendThroughPort(h.db(), { ...send, replyTo: null, ref: ref() })).toMatchObject({ state: 'failed' });
    expect(await sendThroughPort(h.db(), { ...send, replyTo: 'SMnotknown', ref: ref() })).toMatchObject({ state: 'failed', reason: 'the text this answers is not known' });
  });

  it('a notice reaches the owner in their own thread (their verified number), from the assistant’s line', async () => {
    const p = await texting();
    // WhatsApp takes free text only within 24 hours of the person's own message.
    if (channel === 'whatsapp') await fake.inbound({ from: p.phone, to: p.line, body: 'Hi', whatsapp: true });
    const d = await sendToOwner(h.db(), { channel, assistantId: p.assistantId, userId: p.id, text: 'Your number is ready\nIt works.', subject: 'Your number is ready', ref: ref() });
    expect(d).toMatchObject({ state: 'accepted', thread: p.phone });
    await h.until(async () => fake.sentTo(p.phone).find((m) => m.body === 'Your number is ready\nIt works.') ?? null);
    expect(fake.sentTo(p.phone).find((m) => m.body === 'Your number is ready\nIt works.')).toMatchObject({ from: to(p.line, channel) });
  });

  it('a notice the provider refuses at the owner’s first number goes to their next one, and to each at most once', async () => {
    const p = await texting();
    const second = nextNumber();
    expect((await call(h.app(), '/identifiers', { key: p.acct.key, body: { type: 'phone', value: second, userId: p.id, verified: true } })).status).toBe(201);
    if (channel === 'whatsapp') for (const n of [p.phone, second]) await fake.inbound({ from: n, to: p.line, body: 'Hi', whatsapp: true });
    // The notice to the first number is refused, whatever the turns the "Hi"s started send meanwhile.
    fake.state.refuseNext = { status: 400, code: 21211, message: "The 'To' number is not a valid phone number.", match: { to: p.phone, body: 'Your answer is needed' } };
    const notice = { channel, assistantId: p.assistantId, userId: p.id, text: 'Your answer is needed', ref: ref() };
    expect(await sendToOwner(h.db(), notice)).toMatchObject({ state: 'accepted', thread: second });
    // Sent again (a retried step): neither number is texted twice. The answer is the first send's as
    // known now: the provider's status callback may have said `delivered` meanwhile.
    expect(await sendToOwner(h.db(), notice)).toMatchObject({ state: expect.stringMatching(/^(accepted|delivered)$/), thread: second });
    expect(fake.sentTo(p.phone).filter((m) => m.body === 'Your answer is needed')).toEqual([]);
    expect(fake.sentTo(second).filter((m) => m.body === 'Your answer is needed')).toHaveLength(1);
  });

  it('a dispatch goes to the one number it names exactly as approved, once per ref; what the channel cannot carry is refused with nothing sent', async () => {
    const p = await texting();
    const person = nextNumber();
    if (channel === 'whatsapp') await fake.inbound({ from: person, to: p.line, body: 'Hello', whatsapp: true });
    const dispatch = { channel, assistantId: p.assistantId, kind: 'dispatch' as const, to: person, text: 'See you at 8.', ref: ref(), dispatchId: null };
    expect(await sendThroughPort(h.db(), dispatch)).toMatchObject({ state: 'accepted' });
    // Again (the same ref): not sent twice; `delivered` once the provider's status callback said so.
    expect(await sendThroughPort(h.db(), dispatch)).toMatchObject({ state: expect.stringMatching(/^(accepted|delivered)$/) });
    expect(fake.sentTo(person).filter((m) => m.body === 'See you at 8.')).toHaveLength(1);

    const refused = async (o: Partial<typeof dispatch> & Record<string, unknown>, reason: RegExp) => {
      const before = fake.sent.length;
      const d = await sendThroughPort(h.db(), { ...dispatch, ref: ref(), ...o });
      expect(d, JSON.stringify(o)).toMatchObject({ state: 'failed', reason: expect.stringMatching(reason) });
      expect(fake.sent.length).toBe(before);
    };
    await refused({ to: 'Bob' }, /not a phone number in E\.164 form/);
    await refused({ text: 'x'.repeat(1_601) }, /holds at most 1600 characters/);
    await refused({ buttons: [{ text: 'Yes', decision: 'approve', binding: 'b' }] } as never, /has no buttons/);
    // Files go by link (the core signs one for each): bytes alone are refused.
    await refused({ files: [{ filename: 'a.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF') }] } as never, /takes its files as links/);
    // A group the line has never heard from is no conversation of the assistant's.
    await refused({ to: 'group:unknown' }, /not in that group/);

    // With a link, the file travels as the message's media (its bytes are never read for the send).
    const withFile = await sendThroughPort(h.db(), { ...dispatch, ref: ref(), text: 'The menu.', links: [{ filename: 'menu.pdf', contentType: 'application/pdf', url: `${h.app().baseUrl}/menu.pdf` }] });
    expect(withFile).toMatchObject({ state: 'accepted' });
    expect(fake.sentTo(person).find((m) => m.body === 'The menu.')!.mediaUrls).toEqual([`${h.app().baseUrl}/menu.pdf`]);
  });

  it('an assistant without a line on the channel sends nothing it would send as itself', async () => {
    const acct = await newAccount(h.app());
    const p = await h.person(acct);
    const before = fake.sent.length;
    const d = await sendThroughPort(h.db(), { channel, assistantId: p.assistantId, kind: 'dispatch', to: nextNumber(), text: 'Hello', ref: ref() });
    expect(d.state).toBe('failed');
    expect(fake.sent.length).toBe(before);
  });
});
