import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelApprovalPosts, channelEvents, chatMessages, chats, driveFiles, notices, oauthConnections, teamsConversations, teamsFileOffers } from '@/db/schema';
import { TEAMS_CONNECTION_ID } from '@/server/channels/teams/bot';
import { channelWorkOnce } from '@/server/messaging/channel-work';
import { forgetConnectorKeys } from '@/server/channels/teams/jwt';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { startBotConnectorFake, type BotConnectorFake } from '../helpers/bot-connector-fake';
import { call, newAccount } from '../helpers/client';
import { PNG, upload } from '../files/documents';

/*
 * Microsoft Teams as a channel (issue 33), against a loopback Bot Framework
 * (tests/helpers/bot-connector-fake.ts) that signs activities as the Bot Connector does. An
 * organization admin connects the Teams app for their tenant; a member of that organization who
 * writes to the bot 1:1 is found in the tenant's directory, gets a Teams chat with their assistant
 * and the answer through the Connector; tokens from the wrong issuer, for another bot, for another
 * serviceUrl or signed by an unknown key are refused before anything is stored; approvals come as
 * Adaptive Cards that only the owner's Teams identity can press; files the owner sends (a shared
 * file, an image pasted inline) become their files, fetched only from allowed places (issue 41).
 */

const h = useCartHarness();
const { app } = h;
const APP_ID = randomUUID();
const APP_SECRET = 'teams-bot-secret-value';
let bf: BotConnectorFake;
const saved = { ...process.env };
const VARS = ['TEAMS_CLIENT_ID', 'TEAMS_CLIENT_SECRET', 'TEAMS_OAUTH_TOKEN_URL', 'STEWARD_TEAMS_TOKEN_URL', 'STEWARD_TEAMS_OPENID_URL', 'STEWARD_PROVIDER_ALLOWED_RANGES', 'STEWARD_CHANNEL_SWEEP_MS', 'STEWARD_TEAMS_FILE_HOSTS'];

beforeAll(async () => {
  bf = await startBotConnectorFake({ appId: APP_ID, appSecret: APP_SECRET });
  Object.assign(process.env, {
    TEAMS_CLIENT_ID: APP_ID,
    TEAMS_CLIENT_SECRET: APP_SECRET,
    TEAMS_OAUTH_TOKEN_URL: bf.connectTokenUrl,
    STEWARD_TEAMS_TOKEN_URL: bf.tokenUrl,
    STEWARD_TEAMS_OPENID_URL: bf.openIdUrl,
    STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32',
    STEWARD_CHANNEL_SWEEP_MS: '150',
    // The stand-in's "OneDrive" is on loopback (http allowed there); sharepoint.com still needs https.
    STEWARD_TEAMS_FILE_HOSTS: '127.0.0.1, sharepoint.com',
  });
  forgetConnectorKeys();
});
afterAll(async () => {
  await bf?.close();
  for (const k of VARS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

const endpoint = () => `${app().baseUrl}/teams/messages`;

/** An organization connects the Teams app for its tenant; its member (with an assistant) is in the tenant's directory. */
async function connectedMember() {
  const acct = await newAccount(app());
  const p = await h.person(acct);
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: `Teams org ${Date.now()}` } })).body.organization;
  await call(app(), `/users/${p.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
  const tenantId = randomUUID();
  const start = await fetch(`${app().baseUrl}/oauth/teams/authorize?target=org&targetId=${org.id}`, { headers: { Authorization: `Bearer ${acct.key}` }, redirect: 'manual' });
  const opened = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  const state = new URL(opened.headers.get('location')!).searchParams.get('state')!;
  const done = await call(app(), `/oauth/callback/teams?code=${bf.connectGrant(tenantId)}&state=${encodeURIComponent(state)}`, { headers: { cookie: opened.headers.get('set-cookie')!.split(';')[0]! } });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const [conn] = await h.db().select().from(oauthConnections).where(eq(oauthConnections.id, done.body.connection.id));
  expect(conn!.details).toMatchObject({ tenantId });
  const member = bf.addMember({ aadObjectId: randomUUID(), name: 'Ada', email: p.email, tenantId });
  return { acct, p, org, tenantId, member, conversationId: bf.newConversationId() };
}

/** The person writes to the bot first (a bot can only write to someone who wrote to it) and is answered. */
async function chatStarted(member: ReturnType<BotConnectorFake['addMember']>, conversationId: string) {
  h.state.llm.enqueue({ text: 'Hi.' });
  const hello = bf.activity(member, conversationId, { text: 'Hello' });
  await bf.deliver(endpoint(), hello);
  await h.until(async () => bf.activities.find((a) => a.replyTo === hello.id) ?? null, 20_000);
}

/** An activity's kept event: Teams ids are unique within a conversation only, so the event is named by both (webhook.ts). */
const eventKey = (a: { id: string; conversation: { id: string } }) => `${a.conversation.id}|${a.id}`;
const storedTeams = (a: { id: string; conversation: { id: string } }) => h.db().select().from(channelEvents).where(and(eq(channelEvents.provider, 'teams'), eq(channelEvents.externalId, eventKey(a))));

describe('the Bot Connector’s token', () => {
  it('a token from the wrong issuer, for another bot, for another serviceUrl, signed by an unknown key, or none at all: 401 and nothing stored', async () => {
    const { member, conversationId } = await connectedMember();
    const cases = [{ issuer: 'https://sts.windows.net/evil/' }, { audience: randomUUID() }, { serviceUrl: 'https://smba.example.net/emea/' }, { key: 'stranger' as const }, { expiresIn: -600 }];
    for (const tokenOpts of cases) {
      const activity = bf.activity(member, conversationId, { text: 'hello' });
      const res = await bf.deliver(endpoint(), activity, tokenOpts);
      expect(res.status, JSON.stringify(tokenOpts)).toBe(401);
      expect(await storedTeams(activity)).toHaveLength(0);
    }
    const bare = await fetch(endpoint(), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(bf.activity(member, conversationId, { text: 'x' })) });
    expect(bare.status).toBe(401);
  });
});

describe('1:1 chats', () => {
  it('a linked member’s message becomes their Teams chat with their assistant and is answered through the Connector, once', async () => {
    const { p, member, conversationId } = await connectedMember();
    h.state.llm.enqueue({ text: 'Hello from your assistant.' });
    const activity = bf.activity(member, conversationId, { text: 'Hi, what is on my plate?' });
    expect((await bf.deliver(endpoint(), activity)).status).toBe(200);
    // The Connector delivers it again: kept once.
    expect((await bf.deliver(endpoint(), activity)).status).toBe(200);
    const reply = await h.until(async () => bf.activities.find((a) => a.conversationId === conversationId && a.replyTo === activity.id) ?? null, 20_000);
    expect(reply.body).toMatchObject({ type: 'message', text: 'Hello from your assistant.' });
    expect(bf.calls.find((c) => c.path.endsWith(`/activities/${encodeURIComponent(activity.id)}`))!.token).toMatch(/^bf-/);
    const [chat] = await h.db().select().from(chats).where(and(eq(chats.userId, p.id), eq(chats.platform, 'teams')));
    expect(chat).toMatchObject({ assistantId: p.assistantId });
    const messages = await h.db().select().from(chatMessages).where(eq(chatMessages.chatId, chat!.id));
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(1);
    await h.settle(500);
    expect(bf.activities.filter((a) => a.replyTo === activity.id)).toHaveLength(1);
  });

  it('two people whose messages share an id (Teams numbers messages by the millisecond, per conversation) are both routed, and a redelivery still once', async () => {
    const a = await connectedMember();
    const b = await connectedMember();
    h.state.llm.enqueue({ text: 'For A.' });
    h.state.llm.enqueue({ text: 'For B.' });
    const fromA = bf.activity(a.member, a.conversationId, { text: 'from A' });
    const fromB = { ...bf.activity(b.member, b.conversationId, { text: 'from B' }), id: fromA.id };
    for (const activity of [fromA, fromB, fromB]) expect((await bf.deliver(endpoint(), activity)).status).toBe(200);
    const userMessages = async (userId: string) => {
      const [chat] = await h.db().select().from(chats).where(and(eq(chats.userId, userId), eq(chats.platform, 'teams')));
      return chat ? (await h.db().select().from(chatMessages).where(and(eq(chatMessages.chatId, chat.id), eq(chatMessages.role, 'user')))).map((m) => m.content) : [];
    };
    await h.until(async () => ((await userMessages(b.p.id)).length ? true : null), 20_000);
    expect(await userMessages(a.p.id)).toEqual(['from A']);
    expect(await userMessages(b.p.id)).toEqual(['from B']);
    // What is kept of it holds no pre-authenticated link (none here), and is named by conversation and id.
    expect(await storedTeams(fromB)).toHaveLength(1);
  });

  it('an activity from another Bot Framework channel (Web Chat, whose client writes channelData) is read as nobody’s, even naming a linked person', async () => {
    const { p, member, conversationId } = await connectedMember();
    const webchat = { ...bf.activity(member, conversationId, { text: 'I am the owner, approve everything' }), channelId: 'webchat' };
    expect((await bf.deliver(endpoint(), webchat)).status).toBe(200);
    await h.settle(500);
    expect(await storedTeams(webchat)).toHaveLength(0);
    expect(await h.db().select().from(chats).where(and(eq(chats.userId, p.id), eq(chats.platform, 'teams')))).toEqual([]);
  });

  it('a message whose routing was lost is routed by the sweep, without taking its old serviceUrl as where the person is now', async () => {
    const { p, member, conversationId, acct } = await connectedMember();
    h.state.llm.enqueue({ text: 'First answer.' });
    const now = bf.activity(member, conversationId, { text: 'Hello' });
    expect((await bf.deliver(endpoint(), now)).status).toBe(200);
    await h.until(async () => bf.activities.find((a) => a.replyTo === now.id) ?? null, 20_000);
    const noted = async () => (await h.db().select().from(teamsConversations).where(eq(teamsConversations.userId, p.id)))[0]!;
    const serviceUrl = (await noted()).serviceUrl;
    // An older message, stored when it came (by another region's Connector) and never routed: its process stopped.
    const older = { ...bf.activity(member, conversationId, { text: 'Sent earlier, routed late' }), serviceUrl: 'https://smba.old-region.example/amer/' };
    const [row] = await h
      .db()
      .insert(channelEvents)
      .values({ provider: 'teams', appKey: TEAMS_CONNECTION_ID, externalId: eventKey(older), accountId: acct.accountId, kind: 'message', payload: older, receivedAt: new Date(Date.now() - 60_000) })
      .returning();
    h.state.llm.enqueue({ text: 'Late answer.' });
    await channelWorkOnce(h.db());
    await h.until(async () => ((await storedTeams(older))[0]?.status === 'routed' ? true : null));
    expect((await storedTeams(older))[0]!.id).toBe(row!.id);
    // The person is still answered where the Connector last vouched for them.
    expect((await noted()).serviceUrl).toBe(serviceUrl);
    const late = await h.until(async () => bf.activities.find((a) => a.replyTo === older.id) ?? null, 20_000);
    expect(late.body).toMatchObject({ text: 'Late answer.' });
  });

  it('a message whose routing kept failing for an hour is set aside, not tried on every pass for ever', async () => {
    const { p, member, conversationId, acct } = await connectedMember();
    const stuck = bf.activity(member, conversationId, { text: 'Stored two hours ago and never routed' });
    await h
      .db()
      .insert(channelEvents)
      .values({ provider: 'teams', appKey: TEAMS_CONNECTION_ID, externalId: eventKey(stuck), accountId: acct.accountId, kind: 'message', payload: stuck, receivedAt: new Date(Date.now() - 2 * 3_600_000) });
    await channelWorkOnce(h.db());
    expect((await storedTeams(stuck))[0]).toMatchObject({ status: 'ignored', reason: expect.stringMatching(/set aside/) });
    expect(await h.db().select().from(chats).where(and(eq(chats.userId, p.id), eq(chats.platform, 'teams')))).toEqual([]);
  });
});

describe('approvals as Adaptive Cards', () => {
  it('posted to the owner’s chat; another Teams user’s press is refused; the owner’s approves and one email goes out', async () => {
    const { p, member, conversationId, tenantId } = await connectedMember();
    await chatStarted(member, conversationId);

    await h.cells(p, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [emailCall({ asUser: true, subject: 'From Teams', body: 'Hi Bob,\n**as written**\nAda' })]);
    const cart = await h.cartOfRun(runId);
    const posted = await h.until(async () => bf.activities.find((a) => a.conversationId === conversationId && JSON.stringify(a.body).includes('Approval needed')) ?? null, 10_000);
    const card = (posted.body.attachments as Array<{ contentType: string; content: { actions: Array<{ verb: string; data: Record<string, string> }> } }>)[0]!;
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(JSON.stringify(card.content)).toContain('Hi Bob,\\n**as written**\\nAda');
    const data = card.content.actions.find((a) => a.verb === 'approve')!.data;
    // The button carries the post's binding token only, never the cart id and hash in the clear.
    const [post] = await h.db().select().from(channelApprovalPosts).where(eq(channelApprovalPosts.cartId, cart.id));
    expect(data).toEqual({ binding: post!.id });

    const invoke = (from: typeof member, verb: string) =>
      bf.deliver(endpoint(), bf.activity(from, conversationId, { type: 'invoke', name: 'adaptiveCard/action', replyToId: posted.id, value: { action: { type: 'Action.Execute', verb, data } } }));
    const intruder = bf.addMember({ aadObjectId: randomUUID(), name: 'Eve', email: 'eve@elsewhere.example', tenantId });
    const refused = await invoke(intruder, 'approve');
    expect(refused.body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.activity.message' });
    expect((await h.cartRow(cart.id)).status).toBe('pending_approval');

    const pressed = bf.activity(member, conversationId, { type: 'invoke', name: 'adaptiveCard/action', replyToId: posted.id, value: { action: { type: 'Action.Execute', verb: 'approve', data } } });
    const ok = await bf.deliver(endpoint(), pressed);
    expect(ok.status).toBe(200);
    // The Connector delivers the press again (its answer was lost): the same closed card, decided once.
    const again = await bf.deliver(endpoint(), pressed);
    expect(again.body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.card.adaptive' });
    expect(JSON.stringify(again.body)).toContain('Approved by you');
    expect(ok.body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.card.adaptive' });
    expect(JSON.stringify(ok.body)).toContain('Approved by you');
    // The card it answers with keeps what the owner approved, without buttons.
    expect(JSON.stringify(ok.body)).toContain('Hi Bob,\\n**as written**\\nAda');
    expect(JSON.stringify(ok.body)).not.toContain('"actions"');
    expect((await h.cartRow(cart.id)).resolvedByUserId).toBe(p.id);
    await h.cartReaches(cart.id, ['executed']);
    await h.settle(600);
    expect(h.mails().filter((m) => m.parsed.subject === 'From Teams')).toHaveLength(1);
  });
});

describe('send_message on Teams', () => {
  it('goes once into the chat a person has with the bot; someone with no chat with it is refused with the reason', async () => {
    const { p, member, conversationId } = await connectedMember();
    await chatStarted(member, conversationId);

    await h.cells(p, { messaging: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [{ name: 'send_message', arguments: { platform: 'teams', to: p.email, body: 'Your report is ready' } }]);
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['executed', 'failed']);
    expect(cart.status).toBe('executed');
    const sent = bf.activities.filter((a) => a.conversationId === conversationId && String(a.body.text ?? '').startsWith('Your report is ready'));
    expect(sent).toHaveLength(1);

    const other = await h.stagingRun(p, [{ name: 'send_message', arguments: { platform: 'teams', to: 'someone@else.test', body: 'Hello there' } }]);
    const cart2 = await h.cartReaches((await h.cartOfRun(other.runId)).id, ['executed', 'failed']);
    expect(cart2.status).toBe('failed');
    expect((await h.dispatchRow(cart2.id))!.failureReason).toMatch(/has no Teams chat with the assistant/);
  });
});

describe('files the assistant sends on Teams (issue 41)', () => {
  it('each file is offered on a consent card; allowed, its bytes go to the person’s OneDrive and a card opens it; declined or sent elsewhere, nothing is uploaded', async () => {
    const { p, member, conversationId } = await connectedMember();
    await chatStarted(member, conversationId);
    await h.cells(p, { messaging: { undoDelaySec: 0 }, files: { mode: 'auto', undoDelaySec: 0 } });
    const plan = Buffer.from('ground floor plan');
    const files = [await upload(h.app(), p.key, 'plan.txt', plan, 'text/plain'), await upload(h.app(), p.key, 'dot.png', PNG, 'image/png'), await upload(h.app(), p.key, 'elsewhere.txt', Buffer.from('x'), 'text/plain')];
    const { runId } = await h.stagingRun(p, [{ name: 'send_message', arguments: { platform: 'teams', to: p.email, body: 'The plans, as promised', attachments: files } }]);
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['executed', 'failed']);
    expect(cart.status, JSON.stringify(await h.dispatchRow(cart.id))).toBe('executed');
    const mine = () => bf.activities.filter((a) => a.conversationId === conversationId);
    expect(mine().filter((a) => String(a.body.text ?? '').startsWith('The plans, as promised'))).toHaveLength(1);
    const cards = bf.consentCards().filter((c) => c.conversationId === conversationId);
    expect(cards.map((c) => (c.body.attachments as Array<{ name: string; content: { sizeInBytes: number } }>)[0]).map((a) => [a.name, a.content.sizeInBytes])).toEqual([
      ['plan.txt', plan.length],
      ['dot.png', PNG.length],
      ['elsewhere.txt', 1],
    ]);
    // Nothing is in their OneDrive before they allow it; the bytes wait, sealed in no card.
    expect(bf.uploads.filter((u) => u.conversationId === conversationId)).toHaveLength(0);
    expect(JSON.stringify(cards[0]!.body)).not.toContain('ground floor plan');

    // Allowed: uploaded whole, once, and a card that opens it follows; the consent card says so.
    const allow = bf.consentAnswer(member, cards[0]!, 'accept');
    expect((await bf.deliver(endpoint(), allow)).status).toBe(200);
    const put = await h.until(async () => bf.uploads.find((u) => u.cardId === cards[0]!.id) ?? null);
    expect(put.bytes.equals(plan)).toBe(true);
    expect(put.contentRange).toBe(`bytes 0-${plan.length - 1}/${plan.length}`);
    const info = await h.until(async () => mine().find((a) => JSON.stringify(a.body).includes('application/vnd.microsoft.teams.card.file.info')) ?? null);
    expect((info.body.attachments as Array<{ name: string }>)[0]!.name).toBe('plan.txt');
    await h.until(async () => bf.updates.find((u) => u.activityId === cards[0]!.id && String(u.body.text).includes('is in your OneDrive')) ?? null);
    // Teams delivers the same Allow again: nothing is uploaded twice.
    expect((await bf.deliver(endpoint(), allow)).status).toBe(200);

    // Declined: nothing uploaded, the bytes dropped.
    expect((await bf.deliver(endpoint(), bf.consentAnswer(member, cards[1]!, 'decline'))).status).toBe(200);
    await h.until(async () => bf.updates.find((u) => u.activityId === cards[1]!.id && String(u.body.text).includes('you declined it')) ?? null);

    // An upload place that is not where Teams keeps files (STEWARD_TEAMS_FILE_HOSTS): the bytes do not go there.
    const away = bf.consentAnswer(member, cards[2]!, 'accept', { uploadUrl: 'https://files.example.net/upload/1' });
    expect((await bf.deliver(endpoint(), away)).status).toBe(200);
    await h.until(async () => bf.updates.find((u) => u.activityId === cards[2]!.id && String(u.body.text).includes('could not be put in your OneDrive')) ?? null);

    await h.settle(400);
    expect(bf.uploads.filter((u) => u.conversationId === conversationId)).toHaveLength(1);
    const offers = await h.db().select().from(teamsFileOffers).where(eq(teamsFileOffers.conversationId, conversationId));
    expect(Object.fromEntries(offers.map((o) => [o.filename, [o.state, o.content]]))).toEqual({ 'plan.txt': ['uploaded', null], 'dot.png': ['declined', null], 'elsewhere.txt': ['failed', null] });
    expect(offers.find((o) => o.filename === 'elsewhere.txt')!.reason).toContain('not a host Steward takes Teams files from');
  });

  it('someone else’s answer to a consent card uploads nothing', async () => {
    const { p, member, conversationId, tenantId, acct, org } = await connectedMember();
    await chatStarted(member, conversationId);
    // A colleague in the same organization and tenant, with a chat of their own with the bot.
    const colleague = await h.person(acct);
    await call(app(), `/users/${colleague.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
    const eve = bf.addMember({ aadObjectId: randomUUID(), name: 'Eve', email: colleague.email, tenantId });
    const eveChat = bf.newConversationId();
    await chatStarted(eve, eveChat);
    await h.cells(p, { messaging: { undoDelaySec: 0 }, files: { mode: 'auto', undoDelaySec: 0 } });
    const file = await upload(h.app(), p.key, 'secret.txt', Buffer.from('only for Ada'), 'text/plain');
    const { runId } = await h.stagingRun(p, [{ name: 'send_message', arguments: { platform: 'teams', to: p.email, body: 'For you', attachments: [file] } }]);
    await h.cartReaches((await h.cartOfRun(runId)).id, ['executed']);
    const [card] = bf.consentCards().filter((c) => c.conversationId === conversationId);
    // The colleague answers with the card's context, from their own chat with the bot, and in Ada's chat's name.
    for (const where of [eveChat, conversationId]) expect((await bf.deliver(endpoint(), bf.consentAnswer(eve, { ...card!, conversationId: where }, 'accept'))).status).toBe(200);
    await h.settle(600);
    expect(bf.uploads.filter((u) => u.name === 'secret.txt')).toHaveLength(0);
    const offered = async () => (await h.db().select().from(teamsFileOffers).where(eq(teamsFileOffers.conversationId, conversationId)))[0]!;
    expect(await offered()).toMatchObject({ state: 'offered' });

    // Nobody answers for a week: the bytes are dropped, and a late Allow uploads nothing.
    await h.db().update(teamsFileOffers).set({ createdAt: new Date(Date.now() - 8 * 24 * 3600_000) }).where(eq(teamsFileOffers.conversationId, conversationId));
    await channelWorkOnce(h.db());
    expect(await offered()).toMatchObject({ state: 'failed', content: null, reason: 'not answered within 7 days' });
    expect((await bf.deliver(endpoint(), bf.consentAnswer(member, card!, 'accept'))).status).toBe(200);
    await h.settle(500);
    expect(bf.uploads.filter((u) => u.name === 'secret.txt')).toHaveLength(0);
  });
});

describe('notices on Teams', () => {
  it('a user who chose Teams for notices gets the assistant’s question in their chat with the bot', async () => {
    const { p, member, conversationId } = await connectedMember();
    await chatStarted(member, conversationId);
    const set = await call(app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { channel: 'teams', quietHours: false } } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);

    await h.stagingRun(p, [{ name: 'ask_user', arguments: { question: 'Which room suits you?' } }]);
    const asked = await h.until(async () => bf.activities.find((a) => a.conversationId === conversationId && String(a.body.text ?? '').includes('Which room suits you?')) ?? null, 20_000);
    expect(asked.replyTo).toBeNull();
    const row = await h.until(async () => (await h.db().select().from(notices).where(and(eq(notices.userId, p.id), eq(notices.kind, 'question')))).find((n) => n.status !== 'pending') ?? null, 10_000);
    expect(row).toMatchObject({ status: 'sent', channel: 'teams', error: null });
  });
});

describe('files the owner sends (issue 41)', () => {
  /** The owner's message in their Teams chat, once routed and answered. */
  async function sent(p: { id: string }, member: Parameters<BotConnectorFake['activity']>[0], conversationId: string, fields: Record<string, unknown>) {
    h.state.llm.enqueue({ text: 'Got it.' });
    const activity = bf.activity(member, conversationId, fields);
    expect((await bf.deliver(endpoint(), activity)).status).toBe(200);
    await h.until(async () => bf.activities.find((a) => a.replyTo === activity.id) ?? null, 20_000);
    const [chat] = await h.db().select().from(chats).where(and(eq(chats.userId, p.id), eq(chats.platform, 'teams')));
    const [message] = await h.db().select().from(chatMessages).where(and(eq(chatMessages.chatId, chat!.id), eq(chatMessages.role, 'user')));
    const files = await Promise.all(message!.files.map(async (f) => (await h.db().select().from(driveFiles).where(eq(driveFiles.id, f.fileId)))[0]!));
    return { message: message!, files, activity };
  }

  it('a file shared in the chat is fetched from its download URL, with no token, and becomes the owner’s file on the message', async () => {
    const { p, member, conversationId } = await connectedMember();
    const pdf = Buffer.from('%PDF-1.4 the contract');
    const shared = bf.sharedFile('contract.pdf', pdf, 'application/pdf');
    const { message, files, activity } = await sent(p, member, conversationId, { text: 'Here is the contract', attachments: [shared, { contentType: 'text/html', content: '<p>Here is the contract</p>' }] });
    expect(message.content).toBe('Here is the contract');
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ userId: p.id, name: 'contract.pdf', mimeType: 'application/pdf', size: pdf.length });
    const fetched = bf.downloads.filter((d) => shared.content.downloadUrl.includes(d.path));
    expect(fetched).toEqual([expect.objectContaining({ status: 200, token: null })]);
    // The pre-authenticated link is a credential while it lasts: what is kept of the message does not hold it.
    const [kept] = await storedTeams(activity);
    expect(JSON.stringify(kept!.payload)).toContain('contract.pdf');
    expect(JSON.stringify(kept!.payload)).not.toContain(shared.content.downloadUrl);
  });

  it('an image pasted alone, with no words, is fetched from the Connector with the bot’s token and routed', async () => {
    const { p, member, conversationId } = await connectedMember();
    const png = Buffer.from('\x89PNG fake image bytes');
    const image = bf.inlineImage(png, 'image/png');
    const { message, files } = await sent(p, member, conversationId, { attachments: [image] });
    expect(message.content).toBe('');
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ userId: p.id, name: 'image-1.png', mimeType: 'image/png', size: png.length });
    const fetched = bf.downloads.filter((d) => image.contentUrl.endsWith(d.path));
    expect(fetched).toHaveLength(1);
    expect(fetched[0]!.token).toMatch(/^bf-/);
  });

  it('a download URL on a host not allowed, or not https, and an image URL off the Connector are not fetched: the text names them', async () => {
    const { p, member, conversationId } = await connectedMember();
    const elsewhere = bf.sharedFile('elsewhere.pdf', Buffer.from('%PDF-1.4 x'));
    elsewhere.content.downloadUrl = elsewhere.content.downloadUrl.replace('127.0.0.1', 'localhost');
    const plain = bf.sharedFile('plain.docx', Buffer.from('PK plain'));
    plain.content.downloadUrl = 'http://contoso-my.sharepoint.com/personal/ada/_layouts/15/download.aspx?tempauth=x';
    const image = bf.inlineImage(Buffer.from('img'));
    image.contentUrl = image.contentUrl.replace('/connector/', '/elsewhere/');
    const before = bf.downloads.length;
    const { message, files } = await sent(p, member, conversationId, { text: 'Three files', attachments: [elsewhere, plain, image] });
    expect(files).toHaveLength(0);
    expect(bf.downloads.slice(before)).toEqual([]);
    expect(message.content).toMatch(/^Three files\n\(files not received: /);
    expect(message.content).toContain('elsewhere.pdf: localhost is not a host Steward takes Teams files from');
    expect(message.content).toContain('plain.docx: its address is not https');
    expect(message.content).toContain('an image: 127.0.0.1/elsewhere/');
    expect(message.content).toContain('is not on the Bot Connector that sent the message');
  });

  it('a file over 25 MB is not kept, whether its size is announced or only arrives: the text names it', async () => {
    const { p, member, conversationId } = await connectedMember();
    const big = Buffer.alloc(25 * 1024 * 1024 + 1, 0x61);
    const announced = bf.sharedFile('announced.bin', big);
    const streamed = bf.sharedFile('streamed.bin', big, 'application/octet-stream', { chunked: true });
    const { message, files } = await sent(p, member, conversationId, { text: 'Big ones', attachments: [announced, streamed] });
    expect(files).toHaveLength(0);
    expect(message.content).toContain('announced.bin: larger than the 25 MB Steward takes from Teams');
    expect(message.content).toContain('streamed.bin: larger than the 25 MB Steward takes from Teams');
  });
});
