import { readFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelApprovalPosts, channelEvents, chatMessages, chats, slackAppCredentials, slackApps, slackInstallations } from '@/db/schema';
import { useCartHarness, emailCall } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { slackAppInstalled, slackOAuth } from '../helpers/slack-app-setup';
import { bindingOn, hashOnCard, slackCardOf } from '../helpers/slack-cards';
import { startSlackFake, type Posted, type SlackFake } from '../helpers/slack-fake';
import { PNG, upload } from '../files/documents';

/*
 * Slack as a channel (issue 33), against a loopback Slack (tests/helpers/slack-fake.ts) that signs
 * its callbacks as Slack does: each assistant's own app gets its credentials and becomes active;
 * install and link use them; events are verified (bad or old signatures: 401, nothing stored),
 * kept once (a retry is not acted on again), and a DM from the linked owner is answered in its
 * thread by a chat turn; a cart waiting for the owner is posted to their DM with buttons bound to
 * that post (and so to its contentHash), which refuse anyone else and refuse after an edit, and
 * approve exactly once.
 */

const h = useCartHarness();
const { app } = h;
let slack: SlackFake;
const saved = { ...process.env };

beforeAll(async () => {
  slack = await startSlackFake();
  Object.assign(process.env, {
    STEWARD_SLACK_API_URL: slack.apiUrl,
    SLACK_OAUTH_TOKEN_URL: slack.tokenUrl,
    STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32',
    STEWARD_SLACK_PROGRESS_AFTER_MS: '60000',
    STEWARD_CHANNEL_SWEEP_MS: '150',
  });
  delete process.env.SLACK_CLIENT_ID;
  delete process.env.SLACK_CLIENT_SECRET;
  delete process.env.SLACK_SIGNING_SECRET;
});
afterAll(async () => {
  await slack?.close();
  for (const k of ['STEWARD_SLACK_API_URL', 'SLACK_OAUTH_TOKEN_URL', 'STEWARD_PROVIDER_ALLOWED_RANGES', 'STEWARD_SLACK_PROGRESS_AFTER_MS', 'STEWARD_CHANNEL_SWEEP_MS']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

let teams = 0;
type Person = Awaited<ReturnType<typeof h.person>>;
type Setup = { appId: string; eventsUrl: string; interactivityUrl: string; secret: string; team: string; owner: string };

/** The OAuth start with the user's key, the begin link opened in a browser, Slack's consent, and the callback. */
const oauth = (p: Person, purpose: 'authorize' | 'link', grant: Parameters<SlackFake['grant']>[0]) => slackOAuth(app(), slack, p, purpose, grant);

/** The owner's assistant gets its own app: manifest, credentials, installed in a workspace, and the owner linked. */
async function slackSetup(p: Person): Promise<Setup> {
  const team = `T${++teams}X${Date.now() % 100000}`;
  const owner = `U${teams}OWNER`;
  const made = await slackAppInstalled(app(), slack, p, { team, authedUser: owner, botUserId: `UBOT${teams}` });
  expect(made.toSlack.searchParams.get('client_id')).toBe(made.credentials.clientId);
  return { appId: made.appId, eventsUrl: made.eventsUrl, interactivityUrl: made.interactivityUrl, secret: made.secret, team, owner };
}

const storedEvents = async (appId: string) => h.db().select().from(channelEvents).where(eq(channelEvents.appKey, appId));
const dm = (s: Setup, text: string, ts = `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`, user = s.owner) => ({
  team: s.team,
  event: { type: 'message', channel_type: 'im', channel: `D${user.slice(1)}`, user, text, ts, event_ts: ts },
});

describe('each assistant its own Slack app', () => {
  it('credentials: sealed, never returned, the app becomes active; install and link use the app’s own client; bad input names each field', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const created = await call(app(), `/assistants/${p.assistantId}/slack-apps`, { key: p.key, body: { kind: 'workspace', botDisplayName: 'Ada' } });
    const appId = created.body.slackApp.id as string;
    expect(created.body.slackApp.status).toBe('pending_credentials');
    expect(created.body.manifest.manifestJson.settings.interactivity.request_url).toContain(`/api/slack/interactivity/${appId}`);
    // Before its credentials, the app's webhooks are off and no flow can use it.
    expect((await slack.urlVerification(created.body.manifest.eventsUrl, 'x'.repeat(16), 'c')).status).toBe(404);
    const early = await call(app(), `/oauth/slack/assistant/authorize?assistantId=${p.assistantId}`, { key: p.key });
    expect(early.body.error_code).toBe('slack_app_pending_credentials');

    const bad = await call(app(), `/slack-apps/${appId}/credentials`, { method: 'PUT', key: p.key, body: { clientId: 'nope', signingSecret: 'short' } });
    expect(bad.status).toBe(400);
    expect(bad.body.fields.map((f: { field: string }) => f.field)).toEqual(expect.arrayContaining(['clientId', 'clientSecret', 'signingSecret']));
    const inSlack = slack.createApp(appId);
    const put = await call(app(), `/slack-apps/${appId}/credentials`, { method: 'PUT', key: p.key, body: inSlack });
    expect(put.body.slackApp).toMatchObject({ id: appId, status: 'active', credentials: { clientId: inSlack.clientId, hasClientSecret: true, hasSigningSecret: true, source: 'app' } });
    expect(JSON.stringify(put.body)).not.toContain(inSlack.clientSecret);
    expect(JSON.stringify(put.body)).not.toContain(inSlack.signingSecret);
    const [row] = await h.db().select().from(slackAppCredentials).where(eq(slackAppCredentials.appId, appId));
    expect(row!.sealed).not.toContain(inSlack.signingSecret);
    expect((await h.db().select().from(slackApps).where(eq(slackApps.id, appId)))[0]!.status).toBe('active');
    // Another user of the account does not reach it; the account key does.
    const other = await h.person(acct);
    expect((await call(app(), `/slack-apps/${appId}`, { key: other.key })).status).toBe(404);
    expect((await call(app(), `/slack-apps/${appId}/credentials`, { method: 'PUT', key: other.key, body: inSlack })).status).toBe(404);
    expect((await call(app(), `/slack-apps/${appId}`, { key: acct.key })).status).toBe(200);

    const verified = await slack.urlVerification(created.body.manifest.eventsUrl, inSlack.signingSecret, 'challenge-123');
    expect(verified).toMatchObject({ status: 200, text: 'challenge-123' });

    const { toSlack } = await oauth(p, 'authorize', { team: 'TCRED', authedUser: 'UCRED', botUserId: 'UBOTCRED' });
    expect(toSlack.searchParams.get('client_id')).toBe(inSlack.clientId);
    expect(slack.calls.filter((c) => c.method === 'oauth.v2.access').at(-1)!.body).toMatchObject({ client_id: inSlack.clientId, client_secret: inSlack.clientSecret });
    const [install] = await h.db().select().from(slackInstallations).where(eq(slackInstallations.appId, appId));
    expect(install).toMatchObject({ teamId: 'TCRED', botUserId: 'UBOTCRED' });
    expect(install!.botToken).not.toContain('xoxb-');
    const link = await oauth(p, 'link', { team: 'TCRED', authedUser: 'UCRED' });
    expect(link.toSlack.searchParams.get('user_scope')).toContain('identity.basic');
    const shown = await call(app(), `/slack-apps/${appId}`, { key: p.key });
    expect(shown.body.slackApp.installations).toEqual([expect.objectContaining({ teamId: 'TCRED' })]);
  });
});

describe('events', () => {
  it('a bad or old signature is 401 and nothing is stored; url_verification answers its challenge', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    expect((await slack.event(s.eventsUrl, s.secret, dm(s, 'forged'), { secret: 'not-the-secret-at-all' })).status).toBe(401);
    expect((await slack.event(s.eventsUrl, s.secret, dm(s, 'old'), { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 })).status).toBe(401);
    expect((await slack.event(s.eventsUrl, s.secret, dm(s, 'unsigned'), { unsigned: true })).status).toBe(401);
    expect(await storedEvents(s.appId)).toHaveLength(0);
    expect((await slack.urlVerification(s.eventsUrl, s.secret, 'abc')).text).toBe('abc');
    // Signed but malformed: 400 naming what is wrong, never a 500, nothing stored.
    const noId = await slack.event(s.eventsUrl, s.secret, { team: s.team, eventId: '', event: { type: 'message' } });
    expect(noId.status).toBe(400);
    expect(noId.text).toContain('event_id');
    const garbled = await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: { channel: 'D1', ts: '1.000001', text: '', blocks: null }, actionId: 'steward_cart_approve' });
    expect(garbled.status).toBe(400);
    expect(garbled.text).toContain('payload.actions.0.value');
    expect(await storedEvents(s.appId)).toHaveLength(0);
    // An app that does not exist answers 404, signed or not.
    expect((await slack.urlVerification(s.eventsUrl.replace(s.appId, 'no-such-app'), s.secret, 'abc')).status).toBe(404);
  });

  it('a DM from the linked owner is answered in its thread; a retried event is handled once', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    h.state.llm.enqueue({ text: 'Friday at 8 works.' });
    const first = dm(s, 'Dinner with Bob on Friday?');
    const eventId = `Ev${Date.now()}`;
    const sent = await slack.event(s.eventsUrl, s.secret, { ...first, eventId });
    expect(sent.status).toBe(200);
    // Slack did not see the answer in time and sends it again: acknowledged, not acted on.
    expect((await slack.event(s.eventsUrl, s.secret, { ...first, eventId }, { retryNum: 1 })).status).toBe(200);
    const reply = await h.until(async () => slack.posted.find((m) => m.channel === first.event.channel && m.threadTs === first.event.ts) ?? null, 20_000);
    expect(reply.text).toBe('Friday at 8 works.');
    expect(await storedEvents(s.appId)).toHaveLength(1);
    const [chat] = await h.db().select().from(chats).where(and(eq(chats.userId, p.id), eq(chats.platform, 'slack')));
    expect(chat).toBeTruthy();
    // The post reaches Slack before its row records Slack's acceptance: wait for the record.
    const messages = await h.until(async () => {
      const rows = await h.db().select().from(chatMessages).where(eq(chatMessages.chatId, chat!.id));
      return rows.find((m) => m.role === 'assistant')?.deliveryState === 'provider_accepted' ? rows : null;
    });
    expect(messages.map((m) => m.role).sort()).toEqual(['assistant', 'user']);
    await h.settle(700);
    expect(slack.posted.filter((m) => m.threadTs === first.event.ts)).toHaveLength(1);

    // Someone who is not linked writes too: kept for the owner as contact content, never answered.
    const stranger = dm(s, 'Hi, I am not the owner', undefined, 'USTRANGER');
    expect((await slack.event(s.eventsUrl, s.secret, stranger)).status).toBe(200);
    await h.until(async () => ((await storedEvents(s.appId)).find((e) => e.status !== 'received' && (e.payload as { event: { user: string } }).event.user === 'USTRANGER') ? true : null));
    const kept = await h.db().select().from(chatMessages).where(eq(chatMessages.content, 'Hi, I am not the owner'));
    expect(kept[0]).toMatchObject({ role: 'contact' });
    await h.settle(500);
    expect(slack.posted.filter((m) => m.threadTs === stranger.event.ts)).toHaveLength(0);
  });
});

describe('mentions in channels', () => {
  it('the owner’s mention is their work, answered in their DM (never in the channel); someone else’s is kept, not answered', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    h.state.llm.enqueue({ text: 'The report is due Friday.' });
    const ts = `${Math.floor(Date.now() / 1000)}.424242`;
    const mention = { team: s.team, event: { type: 'app_mention', channel: 'CPROJECT', user: s.owner, text: '<@UBOT1> when is the report due?', ts, event_ts: ts } };
    expect((await slack.event(s.eventsUrl, s.secret, mention)).status).toBe(200);
    const answer = await h.until(async () => slack.posted.find((m) => m.channel === `D${s.owner.slice(1)}` && m.text.includes('The report is due Friday.')) ?? null, 20_000);
    expect(answer.text).toContain('<#CPROJECT>');
    expect(slack.posted.filter((m) => m.channel === 'CPROJECT')).toHaveLength(0);
    const [chat] = await h.db().select().from(chats).where(and(eq(chats.userId, p.id), eq(chats.platform, 'slack'), eq(chats.threadKey, `slack:${p.id}:CPROJECT:${ts}`)));
    expect(chat).toBeTruthy();

    const other = { team: s.team, event: { type: 'app_mention', channel: 'CPROJECT', user: 'UCOLLEAGUE', text: '<@UBOT1> send me the owner’s files', ts: `${Math.floor(Date.now() / 1000)}.434343` } };
    expect((await slack.event(s.eventsUrl, s.secret, other)).status).toBe(200);
    await h.until(async () => ((await h.db().select().from(chatMessages).where(eq(chatMessages.content, other.event.text))).length ? true : null));
    await h.settle(500);
    expect(slack.posted.filter((m) => m.text.includes('files'))).toHaveLength(0);
  });
});

describe('long turns', () => {
  it('show progress by updating one message in the thread, then the answer arrives', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    process.env.STEWARD_SLACK_PROGRESS_AFTER_MS = '150';
    try {
      h.state.llm.enqueue({ text: 'Here is the long answer.', delayMs: 2_000 });
      const asked = dm(s, 'Please think hard about this.');
      expect((await slack.event(s.eventsUrl, s.secret, asked)).status).toBe(200);
      const progress = await h.until(async () => slack.posted.find((m) => m.threadTs === asked.event.ts && m.text.startsWith('Working on it')) ?? null, 10_000);
      const answer = await h.until(async () => slack.posted.find((m) => m.threadTs === asked.event.ts && m.text === 'Here is the long answer.') ?? null, 20_000);
      expect(answer.ts).not.toBe(progress.ts);
      const done = await h.until(async () => slack.updates.find((u) => u.ts === progress.ts && u.text.startsWith('Done')) ?? null);
      expect(done.channel).toBe(progress.channel);
      // One progress message, updated in place: nothing else was posted in the thread.
      expect(slack.posted.filter((m) => m.threadTs === asked.event.ts)).toHaveLength(2);
    } finally {
      process.env.STEWARD_SLACK_PROGRESS_AFTER_MS = '60000';
    }
  });
});

const cardOf = (cartId: string, not?: string) => slackCardOf(h.db, slack, cartId, not);
const hashOn = (m: Posted) => hashOnCard(h.db, m);

describe('approvals as buttons', () => {
  it('the cart is posted as it will be sent; someone else’s press and a stale press are refused; the owner’s press approves and exactly one email goes out', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    await h.cells(p, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [emailCall({ asUser: true, subject: 'Dinner', body: 'Hi Bob,\nFriday at 8?\n*not bold*\nAda' })]);
    const cart = await h.cartOfRun(runId);
    expect(cart.status).toBe('pending_approval');

    const card = await h.until(cardOf(cart.id), 10_000);
    expect(card.channel).toBe(`D${s.owner.slice(1)}`);
    const texts = JSON.stringify(card.blocks);
    expect(texts).toContain('Hi Bob,\\nFriday at 8?\\n*not bold*\\nAda');
    expect(texts).toContain('bob@partner.example');
    expect(await hashOn(card)).toBe(cart.contentHash);

    // Someone else presses the owner's buttons: refused, and only they are told.
    const other = await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: 'UINTRUDER', message: card, actionId: 'steward_cart_approve' });
    expect(other.status).toBe(200);
    expect((await h.cartRow(cart.id)).status).toBe('pending_approval');
    await h.until(async () => slack.ephemeral.find((e) => e.user === 'UINTRUDER') ?? null);

    // A bad signature on a press changes nothing either.
    expect((await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: card, actionId: 'steward_cart_approve' }, { secret: 'wrong-secret-value' })).status).toBe(401);
    expect((await h.cartRow(cart.id)).status).toBe('pending_approval');

    // Edited in the app: the card's buttons carry the old hash and refuse.
    const edited = await call(app(), `/portal/carts/${cart.id}/dispatches/0/edit`, { method: 'PATCH', key: p.key, body: { body: 'Hi Bob,\nSaturday instead?\nAda' } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect((await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: card, actionId: 'steward_cart_approve' })).status).toBe(200);
    expect((await h.cartRow(cart.id)).status).toBe('pending_approval');
    const refusedUpdate = await h.until(async () => slack.updates.find((u) => u.ts === card.ts && u.text.includes('cart_content_changed')) ?? null);
    // The out-of-date card does not keep words that are no longer the cart's.
    expect(refusedUpdate.text).not.toContain('Friday at 8?');

    // The new version is posted; the owner approves it: released before Slack hears back, sent once.
    const fresh = await h.until(cardOf(cart.id, card.ts), 10_000);
    expect(await hashOn(fresh)).toBe(edited.body.cart.contentHash);
    expect(JSON.stringify(fresh.blocks)).toContain('Saturday instead?');
    const pressed = await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: fresh, actionId: 'steward_cart_approve' });
    expect(pressed.status).toBe(200);
    expect(['approved', 'executing', 'executed']).toContain((await h.cartRow(cart.id)).status);
    expect((await h.cartRow(cart.id)).resolvedByUserId).toBe(p.id);
    await h.cartReaches(cart.id, ['executed']);
    // The decided card keeps what it showed, the outcome last, and no buttons.
    const decided = await h.until(async () => slack.updates.find((u) => u.ts === fresh.ts && u.text.includes('Approved')) ?? null);
    expect(decided.text).toContain('Saturday instead?');
    expect(JSON.stringify(decided.blocks)).toContain('Saturday instead?');
    expect((decided.blocks as Array<{ type: string }>).some((b) => b.type === 'actions')).toBe(false);
    // Pressed again (a double click): already decided, nothing more is sent.
    await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: fresh, actionId: 'steward_cart_approve' });
    await h.settle(800);
    const sent = h.mails();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.parsed.text?.trim()).toBe('Hi Bob,\nSaturday instead?\nAda');
  });

  it('a cart too long to show whole gets a card without buttons that sends the owner to the app', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    await h.cells(p, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [emailCall({ asUser: true, subject: 'Long one', body: 'All the minutes. '.repeat(1_000) })]);
    const cart = await h.cartOfRun(runId);
    const posts = async () => h.db().select().from(channelApprovalPosts).where(eq(channelApprovalPosts.cartId, cart.id));
    const post = await h.until(async () => (await posts()).find((x) => x.state === 'posted') ?? null, 10_000);
    const card = slack.posted.find((m) => m.channel === `D${s.owner.slice(1)}` && m.text.startsWith('Approval needed: ') && m.ts === (post.ref as { messageRef: string }).messageRef.split('#')[1]!.split('@')[0])!;
    expect(card.text).toContain('too long to show here in full');
    expect(card.text).toContain('/approvals');
    expect(card.text).not.toContain('All the minutes.');
    expect((card.blocks ?? []).some((b) => b.type === 'actions')).toBe(false);
  });

  it('a card the owner’s newest link cannot receive goes to their next link, through the same app', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    // The owner links a second workspace's account later (newest first), then leaves that workspace.
    const other = { team: `${s.team}B`, user: `${s.owner}B` };
    await oauth(p, 'authorize', { team: other.team, authedUser: other.user, botUserId: `${s.owner}BOT` });
    slack.state.gone.add(other.user);
    try {
      await h.cells(p, { email_as_user: { undoDelaySec: 0 } });
      const { runId } = await h.stagingRun(p, [emailCall({ asUser: true, subject: 'Second link' })]);
      const cart = await h.cartOfRun(runId);
      const card = await h.until(cardOf(cart.id), 10_000);
      expect(card.channel).toBe(`D${s.owner.slice(1)}`);
      // The post's row records where it landed once Slack has answered.
      const post = await h.until(async () => (await h.db().select().from(channelApprovalPosts).where(and(eq(channelApprovalPosts.id, bindingOn(card)), eq(channelApprovalPosts.state, 'posted'))))[0] ?? null);
      expect((post.ref as { thread: string }).thread).toContain(`:${s.team}:`);
      expect(slack.calls.some((c) => c.method === 'chat.postMessage' && c.body.channel === other.user)).toBe(true);
      // Its buttons work where it landed.
      expect((await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: card, actionId: 'steward_cart_reject' })).status).toBe(200);
      expect((await h.cartRow(cart.id)).status).toBe('rejected');
    } finally {
      slack.state.gone.delete(other.user);
    }
  });

  it('reject by button: the cart is rejected and nothing is sent', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    await h.cells(p, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [emailCall({ asUser: true, subject: 'Never' })]);
    const cart = await h.cartOfRun(runId);
    const card = await h.until(cardOf(cart.id), 10_000);
    expect((await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: card, actionId: 'steward_cart_reject' })).status).toBe(200);
    expect((await h.cartRow(cart.id)).status).toBe('rejected');
    await h.settle(600);
    expect(h.mails().filter((m) => m.parsed.subject === 'Never')).toHaveLength(0);
  });
});

describe('a card posted before Slack moved behind the port (issue 41)', () => {
  it('migration 0076 names its place as the port does, and its buttons (the cart and hash in the clear) still decide it, only on that card', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    await h.cells(p, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [emailCall({ asUser: true, subject: 'Posted before' })]);
    const cart = await h.cartOfRun(runId);
    const card = await h.until(cardOf(cart.id), 10_000);
    const [post] = await h.db().select().from(channelApprovalPosts).where(eq(channelApprovalPosts.id, bindingOn(card)));
    // The post as the code before the port wrote it, then the migration.
    const legacyRef = { provider: 'slack', appId: s.appId, teamId: s.team, channel: card.channel, ts: card.ts };
    await h.db().execute(sql`UPDATE channel_approval_posts SET ref = ${JSON.stringify(legacyRef)}::jsonb WHERE id = ${post!.id}`);
    const migration = readFileSync(path.join(process.cwd(), 'db/migrations/0076_slack_port_post_refs.sql'), 'utf8');
    for (const statement of migration.split('--> statement-breakpoint')) await h.db().execute(sql.raw(statement));
    const [migrated] = await h.db().select().from(channelApprovalPosts).where(eq(channelApprovalPosts.id, post!.id));
    expect(migrated!.ref).toEqual(post!.ref);

    // The old card's buttons carried the cart and its hash.
    const legacyValue = JSON.stringify({ cartId: cart.id, contentHash: cart.contentHash });
    const legacyCard = { ...card, blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'steward_cart_approve', value: legacyValue }] }] };
    // On another message, the same buttons decide nothing.
    const elsewhere = { ...legacyCard, ts: `${Math.floor(Date.now() / 1000)}.999999` };
    expect((await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: elsewhere, actionId: 'steward_cart_approve' })).status).toBe(200);
    await h.settle(500);
    expect((await h.cartRow(cart.id)).status).toBe('pending_approval');
    expect((await slack.press(s.interactivityUrl, s.secret, { team: s.team, user: s.owner, message: legacyCard, actionId: 'steward_cart_approve' })).status).toBe(200);
    expect((await h.cartRow(cart.id)).resolvedByUserId).toBe(p.id);
    await h.cartReaches(cart.id, ['executed']);
  });
});

describe('send_message on Slack', () => {
  const messageCall = (to: string, body = 'The slides are in the drive') => [{ name: 'send_message', arguments: { platform: 'slack', to, body } }];

  it('an approved message goes once from the assistant’s own bot to the member the address names; an address the workspace does not know fails with the reason', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    const friend = `U${teams}FRIEND`;
    slack.addUser({ id: friend, team: s.team, name: 'Fran', email: `fran.${teams}@example.test` });
    await h.cells(p, { messaging: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, messageCall(`fran.${teams}@example.test`));
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['executed', 'failed']);
    expect(cart.status).toBe('executed');
    const sent = slack.posted.filter((m) => m.channel === `D${friend.slice(1)}`);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toMatch(/^The slides are in the drive/);
    expect(await h.dispatchRow(cart.id)).toMatchObject({ deliveryState: 'provider_accepted', providerMessageId: `slack:${s.appId}:${s.team}:${friend}#${sent[0]!.ts}@${sent[0]!.channel}` });

    const second = await h.stagingRun(p, messageCall('nobody@example.test'));
    const cart2 = await h.cartReaches((await h.cartOfRun(second.runId)).id, ['executed', 'failed']);
    expect(cart2.status).toBe('failed');
    expect((await h.dispatchRow(cart2.id))!.failureReason).toMatch(/no member of the assistant's Slack workspaces has the address nobody@example.test/);
  });

  it('files (issue 41): the approved message and its files arrive as one message in the member’s DM, the bytes as uploaded; a refused upload shares nothing', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    const friend = `U${teams}FILES`;
    slack.addUser({ id: friend, team: s.team, name: 'Fil', email: `fil.${teams}@example.test` });
    await h.cells(p, { messaging: { undoDelaySec: 0 }, files: { mode: 'auto', undoDelaySec: 0 } });
    const plan = Buffer.from('ground floor plan');
    const first = await upload(h.app(), p.key, 'plan.txt', plan, 'text/plain');
    const second = await upload(h.app(), p.key, 'dot.png', PNG, 'image/png');
    const withFiles = (to: string) => [{ name: 'send_message', arguments: { platform: 'slack', to, body: 'The plans, as promised', attachments: [first, second] } }];

    const { runId } = await h.stagingRun(p, withFiles(`fil.${teams}@example.test`));
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['executed', 'failed']);
    expect(cart.status, JSON.stringify(await h.dispatchRow(cart.id))).toBe('executed');
    const dmChannel = `D${friend.slice(1)}`;
    const sent = slack.shared.filter((m) => m.channel === dmChannel);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toMatch(/^The plans, as promised/);
    expect(sent[0]!.files.map((f) => f.filename)).toEqual(['plan.txt', 'dot.png']);
    expect(sent[0]!.files[0]!.content.equals(plan)).toBe(true);
    expect(sent[0]!.files[1]!.content.equals(PNG)).toBe(true);
    // One message: the words rode with the files, nothing was posted beside them.
    expect(slack.posted.filter((m) => m.channel === dmChannel)).toHaveLength(0);
    expect(await h.dispatchRow(cart.id)).toMatchObject({ deliveryState: 'provider_accepted', providerMessageId: `slack:${s.appId}:${s.team}:${friend}#files:${sent[0]!.files.map((f) => f.id).join(',')}@${dmChannel}` });

    // Slack refuses the bytes: the completing call is never made, so nobody sees anything, and the dispatch says why.
    slack.state.refuseUploads = true;
    try {
      const again = await h.stagingRun(p, withFiles(friend));
      const cart2 = await h.cartReaches((await h.cartOfRun(again.runId)).id, ['executed', 'failed']);
      expect(cart2.status).toBe('failed');
      expect((await h.dispatchRow(cart2.id))!.failureReason).toMatch(/Slack refused the upload of "plan.txt" \(HTTP 500\): nothing was sent/);
      expect(slack.shared.filter((m) => m.channel === dmChannel)).toHaveLength(1);
    } finally {
      slack.state.refuseUploads = false;
    }
  });
});
