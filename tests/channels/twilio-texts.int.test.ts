import { and, eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assistants, chatMessages, chats, driveFiles, inboundTexts, outboundTexts, tasks } from '@/db/schema';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { type TwilioFake } from '../helpers/twilio-fake';
import { useTwilioFake } from '../helpers/use-twilio-fake';
import { PNG, upload } from '../files/documents';

/*
 * SMS, MMS and WhatsApp on an assistant's own number, through a loopback Twilio that signs its
 * webhooks as Twilio does: the owner's text becomes a chat turn whose answer goes back as a text in
 * the same conversation; strangers are kept (and answered only through a held conversation);
 * unsigned or wrongly signed webhooks are 403 and store nothing; STOP is honoured; WhatsApp's
 * 24-hour window; send_message dispatches reach Twilio once, and status callbacks settle them.
 */

const h = useCartHarness();
const twilio = useTwilioFake('+1415555', (f) => {
  f.state.smsUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/messages`;
});
const { nextNumber } = twilio;
let fake: TwilioFake;
beforeAll(() => {
  fake = twilio.fake;
});
beforeEach(() => {
  fake.state.failNext = null;
  fake.state.refuseNext = null;
});

type Person = Awaited<ReturnType<typeof h.person>> & { phone: string; line: string; acctKey: string };

/** A user whose assistant has a number (sms, whatsapp) and who has a verified phone. */
async function texter(opts: { talkToStrangers?: boolean } = {}): Promise<Person> {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const phone = nextNumber();
  const added = await call(h.app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { sms: true, whatsapp: true } } });
  expect(request.status, JSON.stringify(request.body)).toBe(201);
  const line = nextNumber();
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line });
  await h.db().update(assistants).set({ talkToStrangers: opts.talkToStrangers ?? false }).where(eq(assistants.id, p.assistantId));
  return { ...p, phone, line, acctKey: acct.key };
}

const inboundRow = async (sid: string) => (await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, sid)))[0];

describe('the owner texts their assistant', () => {
  it('a chat turn answers, and the answer goes back as a text to the same number from the assistant’s line; the status callback settles it', async () => {
    const p = await texter();
    h.state.llm.enqueue({ text: 'Dinner with Bob is noted for Friday.' });
    const sent = await fake.inbound({ from: p.phone, to: p.line, body: 'Remember dinner with Bob on Friday' });
    expect(sent.status).toBe(200);
    expect(sent.contentType).toContain('text/xml');
    expect(sent.text).toContain('<Response>');

    const reply = await h.until(async () => fake.sentTo(p.phone)[0] ?? null, 20_000);
    expect(reply).toMatchObject({ from: p.line, body: 'Dinner with Bob is noted for Friday.' });
    expect(reply.statusCallback).toMatch(/\/api\/channels\/twilio\/status\?ref=[0-9a-f]{24}$/);

    const row = await inboundRow(sent.messageSid);
    expect(row).toMatchObject({ status: 'chat', fromNumber: p.phone, toNumber: p.line, channel: 'sms' });
    const [chat] = await h.db().select().from(chats).where(eq(chats.id, row!.chatId!));
    expect(chat).toMatchObject({ platform: 'sms', userId: p.id });
    const messages = await h.db().select().from(chatMessages).where(eq(chatMessages.chatId, chat!.id)).orderBy(chatMessages.createdAt);
    expect(messages[0]).toMatchObject({ role: 'user', content: 'Remember dinner with Bob on Friday', platform: 'sms', deliveryState: 'received' });
    // The status callback (sent, then delivered) reaches the reply.
    const settled = await h.until(async () => {
      const [r] = await h.db().select().from(chatMessages).where(and(eq(chatMessages.chatId, chat!.id), eq(chatMessages.role, 'assistant')));
      return (r?.metadata as { delivery?: { state?: string } }).delivery?.state === 'delivered' ? r : null;
    }, 10_000);
    expect(settled).toMatchObject({ deliveryState: 'provider_accepted' });
    expect((await h.db().select().from(outboundTexts).where(eq(outboundTexts.providerMessageId, reply.sid)))[0]).toMatchObject({ status: 'delivered', purpose: 'reply' });

    // A second text continues the same chat.
    h.state.llm.enqueue({ text: 'Moved to 8 pm.' });
    const second = await fake.inbound({ from: p.phone, to: p.line, body: 'Make it 8 pm' });
    await h.until(async () => (fake.sentTo(p.phone).length === 2 ? true : null), 20_000);
    expect((await inboundRow(second.messageSid))!.chatId).toBe(chat!.id);
    const listed = await call(h.app(), '/chats?platform=sms', { key: p.key });
    expect(listed.body.chats.map((c: { id: string }) => c.id)).toContain(chat!.id);
  });

  it('MMS media become the owner’s files, listed on the message', async () => {
    const p = await texter();
    h.state.llm.enqueue({ text: 'Got the picture.' });
    const sent = await fake.inbound({ from: p.phone, to: p.line, body: 'Here is the receipt', media: [{ bytes: Buffer.from('fake-jpeg-bytes'), contentType: 'image/jpeg' }] });
    expect(sent.status).toBe(200);
    const row = await inboundRow(sent.messageSid);
    const [message] = await h.db().select().from(chatMessages).where(eq(chatMessages.id, row!.activityId!));
    expect(message!.files).toHaveLength(1);
    const [file] = await h.db().select().from(driveFiles).where(eq(driveFiles.id, message!.files[0]!.fileId));
    expect(file).toMatchObject({ userId: p.id, mimeType: 'image/jpeg', size: 15 });
  });

  it('a webhook delivered again (same MessageSid) is answered and acted on once', async () => {
    const p = await texter();
    h.state.llm.setFallback(() => ({ text: 'Once.' }));
    const first = await fake.inbound({ from: p.phone, to: p.line, body: 'Only once please' });
    const again = await fake.inbound({ from: p.phone, to: p.line, body: 'Only once please', messageSid: first.messageSid });
    expect(again.status).toBe(200);
    expect(await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, first.messageSid))).toHaveLength(1);
    await h.until(async () => fake.sentTo(p.phone)[0] ?? null, 20_000);
    await h.settle(1_000);
    expect(fake.sentTo(p.phone)).toHaveLength(1);
  });
});

describe('webhook signatures', () => {
  it('unsigned, wrongly signed, or signed for another URL: 403 and nothing stored', async () => {
    const p = await texter();
    const unsigned = await fake.inbound({ from: p.phone, to: p.line, body: 'no signature' }, null);
    expect(unsigned.status).toBe(403);
    expect(JSON.parse(unsigned.text)).toMatchObject({ error_code: 'invalid_signature' });
    const wrong = await fake.inbound({ from: p.phone, to: p.line, body: 'bad signature' }, 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    expect(wrong.status).toBe(403);
    // Signed over another host (as if the Host header had been trusted): refused too.
    const params = { MessageSid: `SM${'a'.repeat(32)}`, AccountSid: fake.accountSid, From: p.phone, To: p.line, Body: 'other host', NumMedia: '0' };
    const elsewhere = await fake.post(fake.state.smsUrl!, params, fake.sign('https://evil.example/api/channels/twilio/messages', params));
    expect(elsewhere.status).toBe(403);
    // A valid signature over parameters that were then changed: refused.
    const signed = fake.sign(fake.state.smsUrl!, params);
    const tampered = await fake.post(fake.state.smsUrl!, { ...params, Body: 'changed' }, signed);
    expect(tampered.status).toBe(403);
    for (const sid of [unsigned.messageSid, wrong.messageSid, params.MessageSid]) expect(await inboundRow(sid)).toBeUndefined();
    const status = await fake.post(`${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/status`, { MessageSid: `SM${'b'.repeat(32)}`, AccountSid: fake.accountSid, MessageStatus: 'delivered' }, null);
    expect(status.status).toBe(403);
  });

  it('a signed webhook with bad fields is 400 naming them; without Twilio credentials the paths answer 404', async () => {
    const params = { MessageSid: 'not-a-sid', AccountSid: fake.accountSid, From: 'nobody', To: '+14155550000', Body: 'x' };
    const bad = await fake.post(fake.state.smsUrl!, params);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('MessageSid');
    expect(bad.text).toContain('From');
    const token = process.env.TWILIO_AUTH_TOKEN;
    delete process.env.TWILIO_AUTH_TOKEN;
    try {
      expect((await fake.post(fake.state.smsUrl!, params)).status).toBe(404);
    } finally {
      process.env.TWILIO_AUTH_TOKEN = token;
    }
  });
});

describe('strangers', () => {
  it('talkToStrangers false: kept in the owner’s chat with that number, nothing answers', async () => {
    const p = await texter({ talkToStrangers: false });
    const stranger = nextNumber();
    const sent = await fake.inbound({ from: stranger, to: p.line, body: 'Is Ada free on Monday?' });
    expect(await inboundRow(sent.messageSid)).toMatchObject({ status: 'chat', reason: 'stranger_kept' });
    const [message] = await h.db().select().from(chatMessages).where(eq(chatMessages.referenceId, sent.messageSid));
    expect(message).toMatchObject({ role: 'contact', content: 'Is Ada free on Monday?', platform: 'sms' });
    await h.settle(1_000);
    expect(fake.sentTo(stranger)).toEqual([]);
    expect(await h.db().select().from(tasks).where(eq(tasks.userId, p.id))).toEqual([]);
  });

  it('talkToStrangers true: a stranger conversation (a tainted task of the owner) opens; nothing is sent to them on its own', async () => {
    const p = await texter({ talkToStrangers: true });
    const stranger = nextNumber();
    h.state.llm.setFallback(() => ({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'A stranger asked about Monday.' } }] }));
    const sent = await fake.inbound({ from: stranger, to: p.line, body: 'Is Ada free on Monday?' });
    const row = await inboundRow(sent.messageSid);
    expect(row).toMatchObject({ status: 'chat', reason: 'stranger_conversation' });
    const [task] = await h.db().select().from(tasks).where(eq(tasks.id, row!.taskId!));
    expect(task).toMatchObject({ userId: p.id, tainted: true });
    expect(task!.tags.some((t) => t.endsWith(`:${stranger}`))).toBe(true);
    await h.settle(1_500);
    expect(fake.sentTo(stranger)).toEqual([]);
  });
});

describe('sending: STOP, the WhatsApp window, status callbacks', () => {
  const messageCall = (platform: string, to: string, body = 'On my way') => [{ name: 'send_message', arguments: { platform, to, body } }];

  it('a send_message dispatch reaches Twilio once from the assistant’s line; an undelivered status fails it with the reason', async () => {
    const p = await texter();
    await h.cells(p, { messaging: { undoDelaySec: 0 } });
    const to = nextNumber();
    const { runId } = await h.stagingRun(p, messageCall('sms', to));
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['executed', 'failed']);
    expect(cart.status).toBe('executed');
    const [sent] = fake.sentTo(to);
    // The owner's branding is part of what was approved and sent (approvals/decorate.ts).
    expect(sent).toMatchObject({ from: p.line, body: expect.stringMatching(/^On my way/) });
    expect(await h.dispatchRow(cart.id)).toMatchObject({ deliveryState: 'provider_accepted', providerMessageId: sent!.sid });
    expect(fake.sentTo(to)).toHaveLength(1);

    fake.state.failNext = { status: 'undelivered', code: '30003' };
    const other = nextNumber();
    const second = await h.stagingRun(p, messageCall('sms', other));
    const cart2 = await h.cartReaches((await h.cartOfRun(second.runId)).id, ['executed', 'failed']);
    const failed = await h.until(async () => {
      const d = await h.dispatchRow(cart2.id);
      return d?.deliveryState === 'failed' ? d : null;
    }, 10_000);
    expect(failed.failureReason).toMatch(/undelivered \(error 30003\)/);
  });

  it('after STOP nothing is sent to that person from that number: the dispatch fails with the reason; START opts back in', async () => {
    const p = await texter();
    await h.cells(p, { messaging: { undoDelaySec: 0 } });
    const friend = nextNumber();
    const stop = await fake.inbound({ from: friend, to: p.line, body: 'STOP' });
    expect(await inboundRow(stop.messageSid)).toMatchObject({ status: 'opted_out', keyword: 'stop' });
    const { runId } = await h.stagingRun(p, messageCall('sms', friend));
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['executed', 'failed']);
    expect(cart.status).toBe('failed');
    expect((await h.dispatchRow(cart.id))!.failureReason).toMatch(/^opted_out: .* replied STOP/);
    expect(fake.sentTo(friend)).toEqual([]);

    await fake.inbound({ from: friend, to: p.line, body: 'START' });
    const again = await h.stagingRun(p, messageCall('sms', friend));
    expect((await h.cartReaches((await h.cartOfRun(again.runId)).id, ['executed', 'failed'])).status).toBe('executed');
    expect(fake.sentTo(friend)).toHaveLength(1);
  });

  it('WhatsApp: outside the 24-hour window a free-form message fails outside_whatsapp_window; once the person writes, it goes', async () => {
    const p = await texter();
    await h.cells(p, { messaging: { undoDelaySec: 0 } });
    const friend = nextNumber();
    const first = await h.stagingRun(p, messageCall('whatsapp', friend, 'Hello on WhatsApp'));
    const cart = await h.cartReaches((await h.cartOfRun(first.runId)).id, ['executed', 'failed']);
    expect(cart.status).toBe('failed');
    expect((await h.dispatchRow(cart.id))!.failureReason).toMatch(/^outside_whatsapp_window/);
    expect(fake.sentTo(friend)).toEqual([]);

    const wrote = await fake.inbound({ from: friend, to: p.line, body: 'Hi there', whatsapp: true });
    expect(await inboundRow(wrote.messageSid)).toMatchObject({ channel: 'whatsapp' });
    const second = await h.stagingRun(p, messageCall('whatsapp', friend, 'Hello again'));
    expect((await h.cartReaches((await h.cartOfRun(second.runId)).id, ['executed', 'failed'])).status).toBe('executed');
    expect(fake.sentTo(friend)[0]).toMatchObject({ to: `whatsapp:${friend}`, from: `whatsapp:${p.line}`, body: expect.stringMatching(/^Hello again/) });
  });
});

describe('files on texts (issue 41)', () => {
  const withFiles = (platform: string, to: string, attachments: string[]) => [{ name: 'send_message', arguments: { platform, to, body: 'The plans', attachments } }];

  it('an approved SMS carries its files as signed links Twilio fetches once; a changed link shows nothing', async () => {
    const p = await texter();
    await h.cells(p, { messaging: { undoDelaySec: 0 }, files: { mode: 'auto', undoDelaySec: 0 } });
    const plan = Buffer.from('ground floor plan');
    const first = await upload(h.app(), p.key, 'plan.txt', plan, 'text/plain');
    const second = await upload(h.app(), p.key, 'dot.png', PNG, 'image/png');
    const to = nextNumber();
    const { runId } = await h.stagingRun(p, withFiles('sms', to, [first, second]));
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['executed', 'failed']);
    expect(cart.status, JSON.stringify(await h.dispatchRow(cart.id))).toBe('executed');
    const [sent] = fake.sentTo(to);
    expect(sent!.mediaUrls).toHaveLength(2);
    // On the configured public origin, never a request's Host.
    for (const u of sent!.mediaUrls) expect(u.startsWith(`${process.env.STEWARD_PUBLIC_URL}/api/drive-files/`)).toBe(true);
    const fetched = await h.until(async () => sent!.fetchedMedia ?? null, 10_000);
    expect(fetched.map((f) => f.status)).toEqual([200, 200]);
    expect(fetched[0]!.bytes.equals(plan)).toBe(true);
    expect(fetched[1]!.bytes.equals(PNG)).toBe(true);
    expect(fetched[1]!.contentType).toBe('image/png');

    // A link is for its one file, as signed: another file's id, or a changed signature, is 404.
    const link = new URL(sent!.mediaUrls[0]!);
    const otherFile = await fetch(sent!.mediaUrls[0]!.replace(first, second));
    expect(otherFile.status).toBe(404);
    const sig = link.searchParams.get('signature')!;
    link.searchParams.set('signature', `${sig[0] === 'a' ? 'b' : 'a'}${sig.slice(1)}`);
    expect((await fetch(link)).status).toBe(404);
    link.searchParams.set('signature', sig);
    link.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 1));
    expect((await fetch(link)).status).toBe(404);
  });

  it('a WhatsApp message with two files is refused with the reason and nothing reaches the provider', async () => {
    const p = await texter();
    await h.cells(p, { messaging: { undoDelaySec: 0 }, files: { mode: 'auto', undoDelaySec: 0 } });
    const a = await upload(h.app(), p.key, 'a.png', PNG, 'image/png');
    const b = await upload(h.app(), p.key, 'b.png', PNG, 'image/png');
    const to = nextNumber();
    const { runId } = await h.stagingRun(p, withFiles('whatsapp', to, [a, b]));
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['executed', 'failed']);
    expect(cart.status).toBe('failed');
    expect((await h.dispatchRow(cart.id))!.failureReason).toMatch(/whatsapp message carries at most 1 file: nothing was sent/);
    expect(fake.sentTo(to)).toHaveLength(0);
  });
});
