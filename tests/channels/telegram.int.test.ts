import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cartDispatches, carts, channelConnections, channelEvents, chatMessages, chats, driveFiles, taskActivities, taskRuns } from '@/db/schema';
import { sendThroughPort } from '@/server/channels/port-send';
import { reroutePortEvent } from '@/server/messaging/port-inbound';
import { useCartHarness, emailCall } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { startTelegramFake, type TelegramFake, type TgPerson } from '../helpers/telegram-fake';

/*
 * Telegram as the first channel behind the port (issue 41), against a loopback Bot API
 * (tests/helpers/telegram-fake.ts) that delivers updates with the bot's secret token as Telegram
 * does: each assistant's own bot (token sealed, setWebhook with a secret_token), updates refused
 * without that secret, the owner linked by the bot's deep link, their messages answered in the chat,
 * strangers kept and not answered, a contact's reply waking the task that waits on them, a group
 * reply staged as an outward action, files both ways, and inline-keyboard approvals bound to the
 * cart version they were posted for.
 */

const h = useCartHarness();
const { app } = h;
let tg: TelegramFake;
const VARS = ['STEWARD_TELEGRAM_API_URL', 'STEWARD_PROVIDER_ALLOWED_RANGES', 'STEWARD_CHANNEL_SWEEP_MS'];
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  tg = await startTelegramFake();
  Object.assign(process.env, { STEWARD_TELEGRAM_API_URL: tg.apiUrl, STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32', STEWARD_CHANNEL_SWEEP_MS: '150' });
});
afterAll(async () => {
  await tg?.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

type Person = Awaited<ReturnType<typeof h.person>>;
let people = 100;
const someone = (first_name: string): TgPerson => ({ id: 900_000 + ++people, first_name });
const inHours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();

/** The user's assistant gets its own bot. */
async function connected(p: Person) {
  const bot = tg.createBot();
  const put = await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { method: 'PUT', key: p.key, body: { token: bot.token } });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return { bot, telegramBot: put.body.telegramBot };
}

/** The owner opens the deep link and presses Start. */
async function linkedOwner(p: Person, token: string, owner: TgPerson) {
  const link = await call(app(), `/assistants/${p.assistantId}/telegram-bot/link`, { method: 'POST', key: p.key, body: {} });
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  const code = new URL(link.body.linkUrl).searchParams.get('start')!;
  expect((await tg.deliver(token, tg.message(owner, { text: `/start ${code}` }))).status).toBe(200);
  await h.until(async () => tg.sent.find((m) => m.chatId === String(owner.id) && m.text.startsWith('Linked')) ?? null, 10_000);
  return code;
}

const eventsOf = (connectionId: string) => h.db().select().from(channelEvents).where(eq(channelEvents.appKey, connectionId));

describe('each assistant its own bot', () => {
  it('the token is checked, sealed and never returned; the webhook is set with a secret; another user reaches nothing; bad tokens are named', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const bad = await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { method: 'PUT', key: p.key, body: { token: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.fields.map((f: { field: string }) => f.field)).toEqual(['token']);
    const unknown = await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { method: 'PUT', key: p.key, body: { token: `123456:AA${'x'.repeat(33)}` } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain('Telegram refused it');

    const { bot, telegramBot } = await connected(p);
    expect(telegramBot).toMatchObject({ assistantId: p.assistantId, botId: bot.id, username: bot.username, ownerLinked: false });
    const hook = tg.bot(bot.token).webhook!;
    expect(hook.url).toBe(`${process.env.STEWARD_PUBLIC_URL}/api/channels/telegram/webhooks/${telegramBot.id}`);
    expect(hook.secret).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const [row] = await h.db().select().from(channelConnections).where(eq(channelConnections.id, telegramBot.id));
    expect(row!.sealed).not.toContain(bot.token);
    expect(row!.sealed).not.toContain(hook.secret!);
    const got = await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { key: p.key });
    expect(got.status).toBe(200);
    expect(JSON.stringify(got.body)).not.toContain(bot.token.split(':')[1]);
    const other = await h.person(acct);
    expect((await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { key: other.key })).status).toBe(404);
    expect((await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { method: 'PUT', key: other.key, body: { token: bot.token } })).status).toBe(404);
    // The same bot for another assistant: refused while it serves this one.
    const otherAssistant = await h.person(acct);
    const taken = await call(app(), `/assistants/${otherAssistant.assistantId}/telegram-bot`, { method: 'PUT', key: otherAssistant.key, body: { token: bot.token } });
    expect(taken.status).toBe(409);

    const gone = await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { method: 'DELETE', key: p.key });
    expect(gone.status).toBe(200);
    expect(tg.bot(bot.token).webhook).toBeNull();
    expect((await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { key: p.key })).status).toBe(404);
  });
});

describe('the webhook', () => {
  it('an update without the secret, or with another one, is 401 and nothing is stored; the same update twice is acted on once', async () => {
    const p = await h.person(await newAccount(app()));
    const { bot, telegramBot } = await connected(p);
    const stranger = someone('Mallory');
    expect((await tg.deliver(bot.token, tg.message(stranger, { text: 'no secret' }), { secret: null })).status).toBe(401);
    expect((await tg.deliver(bot.token, tg.message(stranger, { text: 'wrong secret' }), { secret: 'A'.repeat(43) })).status).toBe(401);
    expect(await eventsOf(telegramBot.id)).toHaveLength(0);
    // A path naming no bot: 404.
    const nowhere = await fetch(`${app().baseUrl}/channels/telegram/webhooks/no-such-bot`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(nowhere.status).toBe(404);
    // Signed but malformed: 400 naming the field.
    const malformed = await tg.deliver(bot.token, { update_id: 'x' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('update_id');

    const update = tg.message(stranger, { text: 'Hello, is anyone there?' });
    expect((await tg.deliver(bot.token, update)).status).toBe(200);
    expect((await tg.deliver(bot.token, update)).status).toBe(200);
    const rows = await h.until(async () => {
      const r = await eventsOf(telegramBot.id);
      return r.length === 1 && r[0]!.status !== 'received' ? r : null;
    }, 10_000);
    expect(rows[0]!.reason).toMatch(/^chat/);
    // A stranger's words are kept for the owner as contact content, never answered from Telegram.
    const kept = await h.db().select().from(chatMessages).where(eq(chatMessages.content, 'Hello, is anyone there?'));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ role: 'contact', platform: 'telegram' });
    await h.settle(500);
    expect(tg.sent.filter((m) => m.chatId === String(stranger.id))).toHaveLength(0);
  });
});

describe('the sweep', () => {
  it('an update stored but never routed (the process stopped) is routed from its stored payload', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const { bot, telegramBot } = await connected(p);
    const stranger = someone('Oscar');
    const update = tg.message(stranger, { text: 'Left behind by a crash' });
    await h.db().insert(channelEvents).values({ provider: 'telegram', appKey: telegramBot.id, externalId: String(update.update_id), accountId: acct.accountId, kind: 'message', payload: update, receivedAt: new Date(Date.now() - 60_000) });
    // Any request to a port webhook starts the sweep in this process.
    await tg.deliver(bot.token, { update_id: update.update_id + 100_000 });
    const kept = await h.until(async () => (await h.db().select().from(chatMessages).where(eq(chatMessages.content, 'Left behind by a crash')))[0] ?? null, 15_000);
    expect(kept).toMatchObject({ role: 'contact', platform: 'telegram' });
    const [row] = await h.db().select().from(channelEvents).where(and(eq(channelEvents.appKey, telegramBot.id), eq(channelEvents.externalId, String(update.update_id))));
    expect(row!.status).toBe('routed');
  });

  it('a link code left `received` and routed twice at once (a slow routing and the sweep) is redeemed once and answered once', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const { telegramBot } = await connected(p);
    const link = await call(app(), `/assistants/${p.assistantId}/telegram-bot/link`, { method: 'POST', key: p.key, body: {} });
    const code = new URL(link.body.linkUrl).searchParams.get('start')!;
    const owner = someone('Grace');
    const update = tg.message(owner, { text: `/start ${code}` });
    const [stored] = await h
      .db()
      .insert(channelEvents)
      .values({ provider: 'telegram', appKey: telegramBot.id, externalId: String(update.update_id), accountId: acct.accountId, kind: 'message', payload: update, receivedAt: new Date(Date.now() - 60_000) })
      .returning();
    const row = { id: stored!.id, provider: 'telegram', appKey: telegramBot.id, payload: update as unknown as Record<string, unknown> };
    await Promise.all([reroutePortEvent(h.db(), row), reroutePortEvent(h.db(), row)]);
    await h.until(async () => tg.sent.find((m) => m.chatId === String(owner.id)) ?? null, 10_000);
    await h.settle(300);
    expect(tg.sent.filter((m) => m.chatId === String(owner.id)).map((m) => m.text)).toEqual([expect.stringMatching(/^Linked/)]);
    const [after] = await h.db().select().from(channelEvents).where(eq(channelEvents.id, stored!.id));
    expect(after).toMatchObject({ status: 'routed', reason: 'linked' });
  });
});

describe('the owner', () => {
  it('links by the deep link (once), then a DM is answered in the chat as a reply; a file sent becomes their file', async () => {
    const p = await h.person(await newAccount(app()));
    const { bot } = await connected(p);
    const owner = someone('Ada');
    const code = await linkedOwner(p, bot.token, owner);
    expect((await call(app(), `/assistants/${p.assistantId}/telegram-bot`, { key: p.key })).body.telegramBot.ownerLinked).toBe(true);
    // The code is spent: someone else using it links nobody.
    const thief = someone('Eve');
    await tg.deliver(bot.token, tg.message(thief, { text: `/start ${code}` }));
    await h.until(async () => tg.sent.find((m) => m.chatId === String(thief.id) && m.text.includes('not valid')) ?? null, 10_000);

    h.state.llm.enqueue({ text: 'Dinner with Bob is noted for Friday.' });
    const asked = tg.message(owner, { text: 'Remember dinner with Bob on Friday' });
    expect((await tg.deliver(bot.token, asked)).status).toBe(200);
    const reply = await h.until(async () => tg.sent.find((m) => m.chatId === String(owner.id) && m.text === 'Dinner with Bob is noted for Friday.') ?? null, 20_000);
    expect(reply.replyTo).toBe(asked.message.message_id);
    const [chat] = await h.db().select().from(chats).where(and(eq(chats.userId, p.id), eq(chats.platform, 'telegram')));
    expect(chat).toMatchObject({ assistantId: p.assistantId });
    // The reply reaches Telegram before its row records Telegram's acceptance: wait for the record.
    const messages = await h.until(async () => {
      const rows = await h.db().select().from(chatMessages).where(eq(chatMessages.chatId, chat!.id));
      return rows.find((m) => m.role === 'assistant')?.deliveryState === 'provider_accepted' ? rows : null;
    });
    expect(messages.find((m) => m.role === 'user')).toMatchObject({ content: 'Remember dinner with Bob on Friday' });

    h.state.llm.enqueue({ text: 'Got the receipt.' });
    const fileId = tg.addFile(Buffer.from('%PDF-1.4 receipt'));
    await tg.deliver(bot.token, tg.message(owner, { caption: 'The receipt', document: { file_id: fileId, file_name: 'receipt.pdf', mime_type: 'application/pdf' } }));
    await h.until(async () => tg.sent.find((m) => m.chatId === String(owner.id) && m.text === 'Got the receipt.') ?? null, 20_000);
    const [withFile] = await h.db().select().from(chatMessages).where(and(eq(chatMessages.chatId, chat!.id), eq(chatMessages.content, 'The receipt')));
    expect(withFile!.files).toHaveLength(1);
    const [file] = await h.db().select().from(driveFiles).where(eq(driveFiles.id, withFile!.files[0]!.fileId));
    expect(file).toMatchObject({ userId: p.id, name: 'receipt.pdf', size: 16 });
  });

  it('in a group, the owner’s question is answered as an outward action: staged, not posted to the group', async () => {
    const p = await h.person(await newAccount(app()));
    const { bot } = await connected(p);
    const owner = someone('Ada');
    await linkedOwner(p, bot.token, owner);
    await h.cells(p, { messaging: { mode: 'manual', undoDelaySec: 0 } });
    const group = { id: -100_000 - people, type: 'supergroup' as const, title: 'Project room' };
    h.state.llm.enqueue({ text: 'The report is due Friday.' });
    expect((await tg.deliver(bot.token, tg.message(owner, { text: 'When is the report due?', chat: group }))).status).toBe(200);
    const dispatch = await h.until(async () => {
      const rows = await h.db().select().from(cartDispatches).innerJoin(carts, eq(carts.id, cartDispatches.cartId)).where(and(eq(carts.userId, p.id), eq(cartDispatches.platform, 'telegram')));
      return rows[0] ?? null;
    }, 20_000);
    expect(dispatch.cart_dispatches).toMatchObject({ type: 'message', actionType: 'messaging' });
    const cart = await h.cartReaches(dispatch.carts.id, ['pending_approval']);
    await h.settle(500);
    expect(tg.sent.filter((m) => m.chatId === String(group.id))).toHaveLength(0);
    // Approved by the owner, it goes into the group, once.
    expect((await h.approve(p, cart.id, { contentHash: cart.contentHash })).status).toBe(200);
    await h.cartReaches(cart.id, ['executed']);
    const posted = await h.until(async () => tg.sent.find((m) => m.chatId === String(group.id)) ?? null, 10_000);
    expect(posted.text).toMatch(/^The report is due Friday\./);
    await h.settle(300);
    expect(tg.sent.filter((m) => m.chatId === String(group.id))).toHaveLength(1);
  });
});

describe('replies on Telegram', () => {
  it('a message from the Telegram user the task waits on wakes it; someone else, or a request without the secret, does not', async () => {
    const p = await h.person(await newAccount(app()));
    const { bot } = await connected(p);
    const bob = someone('Bob');
    const carol = someone('Carol');
    h.state.llm.enqueue({ toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: [{ telegramUserId: String(bob.id) }], followUpAt: inHours(24) } }] });
    const { taskId, runId } = await h.startTask(p, { title: 'Wait for Bob on Telegram' });
    expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
    expect(await h.taskRow(taskId)).toMatchObject({ status: 'awaiting_non_user_response' });

    expect((await tg.deliver(bot.token, tg.message(bob, { text: 'Forged Bob' }), { secret: null })).status).toBe(401);
    const fromCarol = tg.message(carol, { text: 'Carol, not Bob' });
    await tg.deliver(bot.token, fromCarol);
    await h.until(async () => ((await h.db().select().from(chatMessages).where(eq(chatMessages.content, 'Carol, not Bob'))).length ? true : null), 10_000);
    await h.settle(300);
    expect(await h.taskRow(taskId)).toMatchObject({ status: 'awaiting_non_user_response', tainted: false });

    await tg.deliver(bot.token, tg.message(bob, { text: 'Bob here: Thursday works' }));
    const runs = await h.until(async () => {
      const rows = await h.db().select().from(taskRuns).where(eq(taskRuns.taskId, taskId)).orderBy(taskRuns.createdAt);
      return rows.length === 2 && ['finished', 'failed'].includes(rows[1]!.status) ? rows : null;
    }, 30_000);
    expect(runs[1]).toMatchObject({ trigger: 'reply', status: 'finished' });
    const [activity] = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'contact')));
    expect(activity).toMatchObject({ platform: 'telegram' });
    expect(activity!.content).toContain('Bob here: Thursday works');
    const request = h.state.llm.requests.find((r) => JSON.stringify(r.messages).includes('Bob here: Thursday works'))!;
    expect(JSON.stringify(request.messages)).toContain('untrusted-data source=\\"contact:telegram\\"');
    expect((await h.taskRow(taskId)).tainted).toBe(true);
    // No reply went to Bob from the assistant by itself.
    expect(tg.sent.filter((m) => m.chatId === String(bob.id))).toHaveLength(0);
  });
});

describe('files out', () => {
  it('a dispatch with a file sends the text, then the document', async () => {
    const p = await h.person(await newAccount(app()));
    const { bot } = await connected(p);
    const d = await sendThroughPort(h.db(), { channel: 'telegram', assistantId: p.assistantId, kind: 'dispatch', to: '424242', text: 'Here is the plan', files: [{ filename: 'plan.txt', contentType: 'text/plain', content: Buffer.from('step one') }] });
    expect(d).toMatchObject({ state: 'accepted' });
    expect(tg.sent.find((m) => m.token === bot.token && m.chatId === '424242')!.text).toBe('Here is the plan');
    const doc = tg.documents.find((x) => x.token === bot.token)!;
    expect(doc).toMatchObject({ chatId: '424242', filename: 'plan.txt', contentType: 'text/plain' });
    expect(doc.content.toString()).toBe('step one');
    // Telegram refusing the chat: failed, with its reason, never reported sent.
    tg.state.failNext = { method: 'sendMessage', code: 400, description: 'Bad Request: chat not found' };
    expect(await sendThroughPort(h.db(), { channel: 'telegram', assistantId: p.assistantId, kind: 'dispatch', to: '5', text: 'x' })).toMatchObject({ state: 'failed', reason: 'Bad Request: chat not found' });
    // Telegram takes a file's bytes: a file as a link is refused by the port, and nothing is sent.
    const before = tg.sent.length + tg.documents.length;
    const linked = await sendThroughPort(h.db(), { channel: 'telegram', assistantId: p.assistantId, kind: 'dispatch', to: '424242', text: 'By link', links: [{ filename: 'a.pdf', contentType: 'application/pdf', url: 'https://files.example/a.pdf' }] });
    expect(linked).toMatchObject({ state: 'failed', reason: expect.stringContaining('takes its files as bytes, not links') });
    expect(tg.sent.length + tg.documents.length).toBe(before);
  });
});

describe('approvals as inline buttons', () => {
  it('the cart is posted to the owner’s chat bound to its version; another user’s press is refused; the owner’s approves once', async () => {
    const p = await h.person(await newAccount(app()));
    const { bot } = await connected(p);
    const owner = someone('Ada');
    await linkedOwner(p, bot.token, owner);
    await h.cells(p, { email_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [emailCall({ subject: 'From Telegram', body: 'Hi Bob,\nFriday?\nAda' })]);
    const cart = await h.cartOfRun(runId);
    expect(cart.status).toBe('pending_approval');
    const card = await h.until(async () => tg.sent.find((m) => m.chatId === String(owner.id) && m.buttons.length === 2) ?? null, 15_000);
    expect(card.text).toContain('Hi Bob,\nFriday?\nAda');
    expect(card.buttons.map((b) => b.text)).toEqual(['Approve', 'Reject']);
    // The button carries a binding token, never the cart id and hash in the clear.
    expect(card.buttons[0]!.callback_data).not.toContain(cart.contentHash);

    const intruder = someone('Eve');
    const refused = tg.press(intruder, card, card.buttons[0]!.callback_data);
    expect((await tg.deliver(bot.token, refused)).status).toBe(200);
    // The presser is answered right after the webhook's answer.
    expect((await h.until(async () => tg.answered.find((a) => a.callbackQueryId === refused.callback_query.id) ?? null)).text).toMatch(/Only the person|not on an approval/);
    expect((await h.cartRow(cart.id)).status).toBe('pending_approval');

    const press = tg.press(owner, card, card.buttons[0]!.callback_data);
    expect((await tg.deliver(bot.token, press)).status).toBe(200);
    expect((await tg.deliver(bot.token, press)).status).toBe(200);
    expect((await h.cartRow(cart.id)).resolvedByUserId).toBe(p.id);
    await h.cartReaches(cart.id, ['executed']);
    expect((await h.until(async () => tg.answered.find((a) => a.callbackQueryId === press.callback_query.id) ?? null)).text).toContain('Approved by you');
    const closed = await h.until(async () => tg.edits.find((e) => e.messageId === card.messageId) ?? null);
    // The card keeps what was approved, the outcome last.
    expect(closed.text).toContain('Hi Bob,\nFriday?\nAda');
    expect(closed.text).toMatch(/Approved by you.*$/);
    await h.settle(600);
    expect(h.mails().filter((m) => m.parsed.subject === 'From Telegram')).toHaveLength(1);
  });
});
