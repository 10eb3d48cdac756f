import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistants, channelEvents, contacts, inboundTexts, taskActivities, taskRuns } from '@/db/schema';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { forgetConnectorKeys } from '@/server/channels/teams/jwt';
import { useCartHarness } from '../approvals/execution-harness';
import { startBotConnectorFake, type BotConnectorFake } from '../helpers/bot-connector-fake';
import { call, newAccount } from '../helpers/client';
import { slackAppInstalled } from '../helpers/slack-app-setup';
import { startSlackFake, type SlackFake } from '../helpers/slack-fake';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * Replies on every channel (spec 6): a task that waits on someone (wait_for_reply: an E.164
 * number, {contactId}, {slackUserId}, {teamsUserId}) wakes when that person writes on that channel
 * and the channel proves it is them (a signed Twilio webhook from their number, a Slack user of the
 * workspace the assistant's app is installed in, a Teams user linked through a connected tenant).
 * Their words reach the model as untrusted data, the run is tainted and the activity names the
 * channel. Someone else, or a request the channel does not vouch for, wakes nothing.
 */

const h = useCartHarness();
const { app } = h;
const twilio = useTwilioFake('+1416777', (f) => {
  f.state.smsUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/messages`;
});
let slack: SlackFake;
let bf: BotConnectorFake;
const TEAMS_APP = randomUUID();
const VARS = [
  'STEWARD_SLACK_API_URL',
  'SLACK_OAUTH_TOKEN_URL',
  'STEWARD_PROVIDER_ALLOWED_RANGES',
  'STEWARD_SLACK_PROGRESS_AFTER_MS',
  'STEWARD_CHANNEL_SWEEP_MS',
  'TEAMS_CLIENT_ID',
  'TEAMS_CLIENT_SECRET',
  'TEAMS_OAUTH_TOKEN_URL',
  'STEWARD_TEAMS_TOKEN_URL',
  'STEWARD_TEAMS_OPENID_URL',
  'SLACK_CLIENT_ID',
  'SLACK_CLIENT_SECRET',
  'SLACK_SIGNING_SECRET',
];
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));

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
  for (const k of ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_SIGNING_SECRET']) delete process.env[k];
  forgetConnectorKeys();
});
afterAll(async () => {
  await slack?.close();
  await bf?.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

type Person = Awaited<ReturnType<typeof h.person>>;
const inHours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
let titles = 0;

/** A task whose run calls wait_for_reply with these contacts; it rests in awaiting_non_user_response. */
async function waitingOn(p: Person, contactsArg: unknown[]) {
  const title = `Wait for a reply ${++titles}`;
  h.state.llm.enqueue({ toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: contactsArg, followUpAt: inHours(48) } }] });
  const { taskId, runId } = await h.startTask(p, { title });
  expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
  expect(await h.taskRow(taskId)).toMatchObject({ status: 'awaiting_non_user_response' });
  return { taskId, title };
}

const contactsOf = (taskId: string) =>
  h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'contact')));

/** The reply woke the task: a second run triggered by `reply` read the words as untrusted data on that channel, and the task is tainted. */
async function expectWoken(taskId: string, words: string, platform: string, ref: string) {
  const runs = await h.until(async () => {
    const rows = await h.db().select().from(taskRuns).where(eq(taskRuns.taskId, taskId)).orderBy(taskRuns.createdAt);
    return rows.length === 2 && ['finished', 'failed'].includes(rows[1]!.status) ? rows : null;
  }, 30_000);
  expect(runs[1]).toMatchObject({ trigger: 'reply', status: 'finished' });
  const [activity] = await contactsOf(taskId);
  expect(activity).toMatchObject({ platform, runId: runs[1]!.id });
  expect(activity!.content).toContain(words);
  expect(activity!.content.split('\n')[0]).toContain(ref);
  const request = h.state.llm.requests.find((r) => JSON.stringify(r.messages).includes(words));
  const carrying = request!.messages.find((m) => JSON.stringify(m.content).includes(words))!;
  expect(carrying.role).toBe('user');
  expect(String(carrying.content)).toContain(`<untrusted-data source="contact:${platform}">`);
  const task = await h.taskRow(taskId);
  expect(task.tainted).toBe(true);
  expect(task.taintSources).toEqual(expect.arrayContaining([{ kind: 'message', ref }]));
}

/** Nothing reached the task: still waiting, no contact content, one run. */
async function expectStillWaiting(taskId: string) {
  expect(await h.taskRow(taskId)).toMatchObject({ status: 'awaiting_non_user_response', tainted: false });
  expect(await contactsOf(taskId)).toHaveLength(0);
  expect(await h.db().select().from(taskRuns).where(eq(taskRuns.taskId, taskId))).toHaveLength(1);
}

describe('SMS', () => {
  async function texter(): Promise<Person & { line: string }> {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const request = await call(app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { sms: true } } });
    expect(request.status, JSON.stringify(request.body)).toBe(201);
    const line = twilio.nextNumber();
    await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line });
    await h.db().update(assistants).set({ talkToStrangers: false }).where(eq(assistants.id, p.assistantId));
    return { ...p, line };
  }

  it('a text from the number the task waits on wakes it; another number, or an unsigned webhook, does not', async () => {
    const p = await texter();
    const bob = twilio.nextNumber();
    const carol = twilio.nextNumber();
    const { taskId } = await waitingOn(p, [bob]);
    expect((await h.taskRow(taskId)).waitingOnContacts).toEqual([{ email: null, name: null, contactId: null, phone: bob }]);

    // Not proven: the webhook is unsigned (403, nothing stored); another number writes: kept apart.
    const forged = await twilio.fake.inbound({ from: bob, to: p.line, body: 'Forged yes' }, null);
    expect(forged.status).toBe(403);
    const other = await twilio.fake.inbound({ from: carol, to: p.line, body: 'Carol here, not Bob' });
    expect(other.status).toBe(200);
    expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, other.messageSid)))[0]).toMatchObject({ status: 'chat', taskId: null });
    await h.settle(500);
    await expectStillWaiting(taskId);

    const sent = await twilio.fake.inbound({ from: bob, to: p.line, body: 'Tuesday at 10 works for me' });
    expect(sent.status).toBe(200);
    expect((await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, sent.messageSid)))[0]).toMatchObject({ status: 'attached', taskId });
    await expectWoken(taskId, 'Tuesday at 10 works for me', 'sms', bob);
    // The owner sees it on the task, not in a stranger chat.
    const shown = await call(app(), `/tasks/${taskId}/activities`, { key: p.key });
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body)).toContain('Tuesday at 10 works for me');
  });

  it('{contactId} stands for every number the contact holds, written any way', async () => {
    const p = await texter();
    const bob = twilio.nextNumber();
    const spaced = `${bob.slice(0, 2)} (${bob.slice(2, 5)}) ${bob.slice(5, 8)}-${bob.slice(8)}`;
    const created = await call(app(), '/contacts', { key: p.key, body: { email: `bob.${Date.now()}@partner.example`, name: 'Bob Stone', phones: [{ number: spaced }] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const contactId = created.body.contact.id as string;
    const { taskId } = await waitingOn(p, [{ contactId }]);
    expect((await h.taskRow(taskId)).waitingOnContacts).toEqual([expect.objectContaining({ contactId, name: 'Bob Stone' })]);
    // Another user's contact id is an error to the model, and waits on nobody.
    const stranger = await h.person(await newAccount(app()));
    const theirs = await call(app(), '/contacts', { key: stranger.key, body: { email: `x.${Date.now()}@x.example` } });
    h.state.llm.enqueue({ toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: [{ contactId: theirs.body.contact.id }], followUpAt: inHours(2) } }] }, { text: 'Could not wait.' });
    const bad = await h.startTask(p, { title: `Bad wait ${++titles}` });
    await h.ended(bad.runId);
    const tool = (await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, bad.taskId), eq(taskActivities.kind, 'tool'))))[0];
    expect(JSON.stringify(tool!.toolOutput)).toContain('contacts.0.contactId');

    const sent = await twilio.fake.inbound({ from: bob, to: p.line, body: 'Bob again: yes' });
    expect(sent.status).toBe(200);
    await expectWoken(taskId, 'Bob again: yes', 'sms', bob);
  });
});

describe('Slack', () => {
  let teams = 0;
  async function slackSetup(p: Person) {
    const team = `TR${++teams}X${Date.now() % 100000}`;
    const owner = `U${teams}ROWNER`;
    const made = await slackAppInstalled(app(), slack, p, { team, authedUser: owner, botUserId: `UBOTR${teams}` });
    return { appId: made.appId, eventsUrl: made.eventsUrl, secret: made.secret, team };
  }

  const dm = (s: { team: string }, user: string, text: string, extra: Record<string, unknown> = {}) => {
    const ts = `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
    return { team: s.team, event: { type: 'message', channel_type: 'im', channel: `D${user.slice(1)}`, user, text, ts, event_ts: ts, ...extra } };
  };
  const routedAll = (appId: string, n: number) =>
    h.until(async () => {
      const rows = await h.db().select().from(channelEvents).where(eq(channelEvents.appKey, appId));
      return rows.length === n && rows.every((r) => r.status !== 'received') ? rows : null;
    }, 20_000);

  it('a DM from the Slack user the task waits on wakes it; another user, a guest from another workspace, or a forged signature does not', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    const { taskId } = await waitingOn(p, [{ slackUserId: 'U77BOB' }]);

    expect((await slack.event(s.eventsUrl, s.secret, dm(s, 'U77BOB', 'forged'), { secret: 'not-the-secret-at-all' })).status).toBe(401);
    expect((await slack.event(s.eventsUrl, s.secret, dm(s, 'U77CAROL', 'Carol, not Bob'))).status).toBe(200);
    // The same user id, written by a Slack Connect guest whose own workspace is another one.
    expect((await slack.event(s.eventsUrl, s.secret, dm(s, 'U77BOB', 'A guest with Bob’s id', { user_team: 'TOTHERORG' }))).status).toBe(200);
    await routedAll(s.appId, 2);
    await h.settle(300);
    await expectStillWaiting(taskId);

    expect((await slack.event(s.eventsUrl, s.secret, dm(s, 'U77BOB', 'Bob: the contract is signed'))).status).toBe(200);
    const rows = await routedAll(s.appId, 3);
    expect(rows.find((r) => JSON.stringify(r.payload).includes('contract is signed'))!.reason).toMatch(/^attached/);
    await expectWoken(taskId, 'Bob: the contract is signed', 'slack', 'U77BOB');
  });
});

describe('Teams', () => {
  async function connectedOrg() {
    const acct = await newAccount(app());
    const org = (await call(app(), '/organizations', { key: acct.key, body: { name: `Replies org ${Date.now()}` } })).body.organization;
    const tenantId = randomUUID();
    const start = await fetch(`${app().baseUrl}/oauth/teams/authorize?target=org&targetId=${org.id}`, { headers: { Authorization: `Bearer ${acct.key}` }, redirect: 'manual' });
    const opened = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const state = new URL(opened.headers.get('location')!).searchParams.get('state')!;
    const done = await call(app(), `/oauth/callback/teams?code=${bf.connectGrant(tenantId)}&state=${encodeURIComponent(state)}`, { headers: { cookie: opened.headers.get('set-cookie')!.split(';')[0]! } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const member = async (name: string) => {
      const p = await h.person(acct);
      await call(app(), `/users/${p.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
      return { p, teams: bf.addMember({ aadObjectId: randomUUID(), name, email: p.email, tenantId }) };
    };
    return { acct, member };
  }
  const endpoint = () => `${app().baseUrl}/teams/messages`;
  /** An activity's kept event, named by its conversation and id (Teams ids are unique within a conversation only). */
  const routedTeams = (a: { id: string; conversation: { id: string } }) =>
    h.until(async () => {
      const [row] = await h.db().select().from(channelEvents).where(and(eq(channelEvents.provider, 'teams'), eq(channelEvents.externalId, `${a.conversation.id}|${a.id}`)));
      return row && row.status !== 'received' ? row : null;
    }, 20_000);

  it('a message from the Teams user the task waits on wakes it; another member, or a token that does not verify, does not', async () => {
    const { member } = await connectedOrg();
    const ada = await member('Ada');
    const bob = await member('Bob');
    const carol = await member('Carol');
    const { taskId } = await waitingOn(ada.p, [{ teamsUserId: bob.teams.aadObjectId }]);

    const forged = bf.activity(bob.teams, bf.newConversationId(), { text: 'Forged Bob' });
    expect((await bf.deliver(endpoint(), forged, { key: 'stranger' })).status).toBe(401);
    const fromCarol = bf.activity(carol.teams, bf.newConversationId(), { text: 'Carol writes to her own assistant' });
    expect((await bf.deliver(endpoint(), fromCarol)).status).toBe(200);
    expect(await routedTeams(fromCarol)).toMatchObject({ status: 'routed', reason: expect.stringMatching(/^chat/) });
    await h.settle(300);
    await expectStillWaiting(taskId);

    const fromBob = bf.activity(bob.teams, bf.newConversationId(), { text: 'Bob: approved on my side' });
    expect((await bf.deliver(endpoint(), fromBob)).status).toBe(200);
    expect(await routedTeams(fromBob)).toMatchObject({ status: 'routed', reason: expect.stringMatching(/^attached/) });
    // A linked Teams identity speaks as the user's verified email: the activity names it.
    await expectWoken(taskId, 'Bob: approved on my side', 'teams', bob.p.email);
  });
});

describe('lastContactedAt', () => {
  it('is set on the owner’s contact when a dispatch to them is executed, not when it is only staged', async () => {
    const p = await h.person(await newAccount(app()));
    const email = `dana.${Date.now()}@partner.example`;
    const created = await call(app(), '/contacts', { key: p.key, body: { email, name: 'Dana' } });
    const contactId = created.body.contact.id as string;
    await h.cells(p, { email_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
    const { runId } = await h.stagingRun(p, [{ name: 'send_email', arguments: { to: [email], subject: 'Hello Dana', body: 'Hi' } }]);
    const cart = await h.cartOfRun(runId);
    expect(cart.status).toBe('pending_approval');
    const before = (await h.db().select().from(contacts).where(eq(contacts.id, contactId)))[0]!;
    expect(before.lastContactedAt).toBeNull();
    const ok = await h.approve(p, cart.id, { contentHash: cart.contentHash });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await h.cartReaches(cart.id, ['executed']);
    const after = await h.until(async () => (await h.db().select().from(contacts).where(eq(contacts.id, contactId)))[0]!.lastContactedAt ?? null, 10_000);
    expect(after.getTime()).toBeGreaterThan(Date.now() - 60_000);
    const shown = await call(app(), `/contacts/${contactId}`, { key: p.key });
    expect(shown.body.contact.lastContactedAt).toBe(after.toISOString());
  });
});
