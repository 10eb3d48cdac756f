import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { inboundTexts, phoneLineRequests } from '@/db/schema';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { INACTIVE_REPLY } from '@/server/assistants/inactive';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * Issue 46: an assistant with `status: inactive` takes no new work. Texts to it are kept but
 * reach no chat or task; the sender is told so (the owner always, others per talkToStrangers, in
 * the assistant's own words when `metadata.inactiveReply` gives them); tasks and chats cannot be
 * created with it (409 assistant_inactive) until it is active again.
 */
const app = useTestServer();
const twilio = useTwilioFake('+1416888', (f) => {
  f.state.smsUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/messages`;
});

async function world() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: `Quiet ${Date.now().toString(36)}` } });
  const assistantId = hired.body.assistant.id as string;
  const req = await call(app(), '/phone-line-requests', { key, body: { requestedChannels: { sms: true } } });
  const line = twilio.nextNumber();
  await assignPhoneLine(app().database.db, { requestId: req.body.request.id, number: line, channels: 'sms' });
  const [r] = await app().database.db.select().from(phoneLineRequests).where(eq(phoneLineRequests.id, req.body.request.id));
  expect(r.status).toBe('fulfilled');
  const phone = twilio.nextNumber();
  const id = await call(app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: u.id, verified: true } });
  expect(id.status).toBe(201);
  return { acct, u, key, assistantId, line, phone };
}

async function sentWithin(number: string, n: number, ms = 8000) {
  const until = Date.now() + ms;
  while (Date.now() < until && twilio.fake.sentTo(number).length < n) await new Promise((r) => setTimeout(r, 100));
  return twilio.fake.sentTo(number);
}

describe('an inactive assistant', () => {
  it('routes no text into chats or tasks, tells the owner and (with talkToStrangers) strangers, and takes no new tasks or chats', async () => {
    const w = await world();
    // Active, the owner's text opens a chat: the baseline the inactive case differs from.
    await twilio.fake.inbound({ from: w.phone, to: w.line, body: 'Hello while active' });
    expect((await call(app(), '/chats', { key: w.key })).body.total).toBe(1);

    const off = await call(app(), `/assistants/${w.assistantId}`, { key: w.key, method: 'PUT', body: { status: 'inactive' } });
    expect(off.body.assistant.status).toBe('inactive');

    await twilio.fake.inbound({ from: w.phone, to: w.line, body: 'Are you there?' });
    const toOwner = await sentWithin(w.phone, 1);
    expect(toOwner.map((m) => m.body)).toEqual([INACTIVE_REPLY]);
    const stranger = twilio.nextNumber();
    await twilio.fake.inbound({ from: stranger, to: w.line, body: 'Hi, I am new here' });
    expect((await sentWithin(stranger, 1)).map((m) => m.body)).toEqual([INACTIVE_REPLY]);

    const kept = await app().database.db.select().from(inboundTexts).where(and(eq(inboundTexts.assistantId, w.assistantId), eq(inboundTexts.reason, 'assistant_inactive')));
    expect(kept.map((t) => t.body).sort()).toEqual(['Are you there?', 'Hi, I am new here']);
    expect(kept.every((t) => t.chatId === null && t.taskId === null)).toBe(true);
    const chats = await call(app(), '/chats', { key: w.key });
    expect(chats.body.total).toBe(1);
    expect((await call(app(), `/chats/${chats.body.chats[0].id}/messages`, { key: w.key })).body.messages.map((m: { content: string }) => m.content)).not.toContain('Are you there?');

    // No strangers: they are told nothing; the owner hears the assistant's own words.
    await call(app(), `/assistants/${w.assistantId}`, { key: w.key, method: 'PUT', body: { talkToStrangers: false, metadata: { inactiveReply: 'Out of office until Monday.' } } });
    const second = twilio.nextNumber();
    await twilio.fake.inbound({ from: second, to: w.line, body: 'Anyone?' });
    await twilio.fake.inbound({ from: w.phone, to: w.line, body: 'Still off?' });
    expect((await sentWithin(w.phone, 2)).map((m) => m.body)).toEqual([INACTIVE_REPLY, 'Out of office until Monday.']);
    expect(twilio.fake.sentTo(second)).toEqual([]);

    const task = await call(app(), '/tasks', { key: w.key, body: { title: 'Do something', assistant: w.assistantId } });
    expect(task.status).toBe(409);
    expect(task.body.error_code).toBe('assistant_inactive');
    expect(task.body.error).toContain('assistant');
    const chat = await call(app(), '/chats', { key: w.key, body: { assistantId: w.assistantId } });
    expect(chat.status).toBe(409);
    expect(chat.body.error_code).toBe('assistant_inactive');
    expect((await call(app(), '/tasks', { key: w.key })).body.tasks).toEqual([]);

    await call(app(), `/assistants/${w.assistantId}`, { key: w.key, method: 'PUT', body: { status: 'active' } });
    expect((await call(app(), '/tasks', { key: w.key, body: { title: 'Do something', assistant: w.assistantId } })).status).toBeLessThan(300);
    expect((await call(app(), '/chats', { key: w.key, body: { assistantId: w.assistantId } })).status).toBe(201);
  });
});
