import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, channelApprovalPosts, oauthConnections } from '@/db/schema';
import { forgetConnectorKeys } from '@/server/channels/teams/jwt';
import { emailCall, useCartHarness } from '../approvals/execution-harness';
import { startBotConnectorFake, type BotConnectorFake } from '../helpers/bot-connector-fake';
import { call, newAccount } from '../helpers/client';
import { slackAppInstalled, slackOAuth } from '../helpers/slack-app-setup';
import { slackCardOf } from '../helpers/slack-cards';
import { startSlackFake, type SlackFake } from '../helpers/slack-fake';

/*
 * Approval buttons are bound to where they were shown (issue 40, the second high). An ordinary user
 * of the account creates their own workspace Slack app, sets its signing secret to one they chose,
 * and posts to /api/slack/interactivity/{theirAppId} a block_actions press signed with it, naming
 * another user's Slack identity and that user's cart id and content hash (copied from the card):
 * nothing is decided, nothing is sent, no cart.approved is recorded. A press counts only when the
 * app that received it is the one whose install the identity was linked through and that posted
 * that card version to that person, in that conversation, as that message; on Teams, only on the
 * card message the bot posted to the owner's conversation.
 */

const h = useCartHarness();
const { app } = h;
let slack: SlackFake;
let bf: BotConnectorFake;
const TEAMS_APP = randomUUID();
const saved = { ...process.env };
const VARS = ['STEWARD_SLACK_API_URL', 'SLACK_OAUTH_TOKEN_URL', 'STEWARD_PROVIDER_ALLOWED_RANGES', 'STEWARD_SLACK_PROGRESS_AFTER_MS', 'STEWARD_CHANNEL_SWEEP_MS', 'TEAMS_CLIENT_ID', 'TEAMS_CLIENT_SECRET', 'TEAMS_OAUTH_TOKEN_URL', 'STEWARD_TEAMS_TOKEN_URL', 'STEWARD_TEAMS_OPENID_URL'];

beforeAll(async () => {
  slack = await startSlackFake();
  bf = await startBotConnectorFake({ appId: TEAMS_APP, appSecret: 'teams-bot-secret-value' });
  Object.assign(process.env, {
    STEWARD_SLACK_API_URL: slack.apiUrl,
    SLACK_OAUTH_TOKEN_URL: slack.tokenUrl,
    STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32',
    STEWARD_SLACK_PROGRESS_AFTER_MS: '60000',
    STEWARD_CHANNEL_SWEEP_MS: '150',
    TEAMS_CLIENT_ID: TEAMS_APP,
    TEAMS_CLIENT_SECRET: 'teams-bot-secret-value',
    TEAMS_OAUTH_TOKEN_URL: bf.connectTokenUrl,
    STEWARD_TEAMS_TOKEN_URL: bf.tokenUrl,
    STEWARD_TEAMS_OPENID_URL: bf.openIdUrl,
  });
  delete process.env.SLACK_CLIENT_ID;
  delete process.env.SLACK_CLIENT_SECRET;
  delete process.env.SLACK_SIGNING_SECRET;
  forgetConnectorKeys();
});
afterAll(async () => {
  await slack?.close();
  await bf?.close();
  for (const k of VARS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

type Person = Awaited<ReturnType<typeof h.person>>;

/** The user's assistant gets its own workspace app with credentials they chose; installed in `team` and (optionally) their identity linked through it. */
async function ownApp(p: Person, team: string, slackUser: string | null) {
  const made = await slackAppInstalled(app(), slack, p, { team, authedUser: slackUser ?? `U${randomUUID().slice(0, 6).toUpperCase()}`, botUserId: `UBOT${randomUUID().slice(0, 4).toUpperCase()}` }, 'Mine');
  if (slackUser) await slackOAuth(app(), slack, p, 'link', { team, authedUser: slackUser });
  return { appId: made.appId, secret: made.secret, interactivityUrl: made.interactivityUrl };
}

describe('a Slack press', () => {
  it('signed by another user’s own app, naming the owner’s identity, cart and hash (even the card’s channel and ts), decides nothing; the owner’s press on the card approves', async () => {
    const acct = await newAccount(app());
    const [victim, attacker] = [await h.person(acct), await h.person(acct)];
    const team = `T${Date.now() % 1_000_000}`;
    const victimSlack = `UV${Date.now() % 100_000}`;
    const mine = await ownApp(victim, team, victimSlack);
    await h.cells(victim, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(victim, [emailCall({ asUser: true, subject: 'Wire the money', body: 'Hi Bob,\nplease wire it.\nAda' })]);
    const cart = await h.cartOfRun(runId);
    expect(cart.status).toBe('pending_approval');
    const card = await h.until(slackCardOf(h.db, slack, cart.id), 10_000);

    // The attacker's own app, in the same workspace, with a signing secret the attacker chose.
    const theirs = await ownApp(attacker, team, null);
    const forged = await slack.press(theirs.interactivityUrl, theirs.secret, { team, user: victimSlack, message: card, actionId: 'steward_cart_approve' });
    expect(forged.status).toBe(200);
    // A card the attacker's bot posts to the victim looks the same; the victim's own press on it goes to the attacker's app: nothing either.
    const lookalike = { ...card, ts: `${Math.floor(Date.now() / 1000)}.777777` };
    expect((await slack.press(theirs.interactivityUrl, theirs.secret, { team, user: victimSlack, message: lookalike, actionId: 'steward_cart_approve' })).status).toBe(200);
    // Even through the owner's own app, a press on a message that is not the posted card counts for nothing.
    expect((await slack.press(mine.interactivityUrl, mine.secret, { team, user: victimSlack, message: lookalike, actionId: 'steward_cart_approve' })).status).toBe(200);
    await h.settle(1_200);
    expect((await h.cartRow(cart.id)).status).toBe('pending_approval');
    expect(h.mails().filter((m) => m.parsed.subject === 'Wire the money')).toEqual([]);
    expect(await h.db().select().from(auditEvents).where(and(eq(auditEvents.targetId, cart.id), eq(auditEvents.action, 'cart.approved')))).toEqual([]);

    // The owner's press on the card their own app posted: approved, sent once.
    expect((await slack.press(mine.interactivityUrl, mine.secret, { team, user: victimSlack, message: card, actionId: 'steward_cart_approve' })).status).toBe(200);
    await h.cartReaches(cart.id, ['executed']);
    await h.until(async () => h.mails().find((m) => m.parsed.subject === 'Wire the money') ?? null, 10_000);
    expect((await h.cartRow(cart.id)).resolvedByUserId).toBe(victim.id);
  });
});

describe('a Teams press', () => {
  it('counts only on the card message the bot posted to the owner’s conversation', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const org = (await call(app(), '/organizations', { key: acct.key, body: { name: `Bound org ${Date.now()}` } })).body.organization;
    await call(app(), `/users/${p.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
    const tenantId = randomUUID();
    const start = await fetch(`${app().baseUrl}/oauth/teams/authorize?target=org&targetId=${org.id}`, { headers: { Authorization: `Bearer ${acct.key}` }, redirect: 'manual' });
    const opened = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const state = new URL(opened.headers.get('location')!).searchParams.get('state')!;
    const done = await call(app(), `/oauth/callback/teams?code=${bf.connectGrant(tenantId)}&state=${encodeURIComponent(state)}`, { headers: { cookie: opened.headers.get('set-cookie')!.split(';')[0]! } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect((await h.db().select().from(oauthConnections).where(eq(oauthConnections.id, done.body.connection.id)))[0]!.details).toMatchObject({ tenantId });
    const member = bf.addMember({ aadObjectId: randomUUID(), name: 'Ada', email: p.email, tenantId });
    const conversationId = bf.newConversationId();
    h.state.llm.enqueue({ text: 'Hi.' });
    const hello = bf.activity(member, conversationId, { text: 'Hello' });
    await bf.deliver(`${app().baseUrl}/teams/messages`, hello);
    await h.until(async () => bf.activities.find((a) => a.replyTo === hello.id) ?? null, 20_000);

    await h.cells(p, { email_as_user: { undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [emailCall({ asUser: true, subject: 'Teams bound', body: 'Hi Bob' })]);
    const cart = await h.cartOfRun(runId);
    const posted = await h.until(async () => bf.activities.find((a) => a.conversationId === conversationId && JSON.stringify(a.body).includes('Teams bound')) ?? null, 10_000);
    // The button's own binding token (the card Steward posted for this version), as the card carries it.
    const [post] = await h.db().select().from(channelApprovalPosts).where(eq(channelApprovalPosts.cartId, cart.id));
    const data = { binding: post!.id };
    const invoke = (conversation: string, replyToId: string | undefined) =>
      bf.deliver(`${app().baseUrl}/teams/messages`, bf.activity(member, conversation, { type: 'invoke', name: 'adaptiveCard/action', ...(replyToId ? { replyToId } : {}), value: { action: { type: 'Action.Execute', verb: 'approve', data } } }));
    // The owner's own identity, but a card in another conversation, another message, or none named.
    for (const [conversation, replyToId] of [[bf.newConversationId(), posted.id], [conversationId, 'not-the-card'], [conversationId, undefined]] as const) {
      const res = await invoke(conversation, replyToId);
      expect(res.body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.activity.message' });
      expect((await h.cartRow(cart.id)).status).toBe('pending_approval');
    }
    const ok = await invoke(conversationId, posted.id);
    expect(ok.body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.card.adaptive' });
    await h.cartReaches(cart.id, ['executed']);
  });
});
