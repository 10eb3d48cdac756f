import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { WebhookRequest } from '@/server/channels/adapter';
import { slackAdapter } from '@/server/channels/slack/adapter';
import { APPROVE_ACTION, REJECT_ACTION } from '@/server/channels/slack/transform';
import { newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { slackAppInstalled } from '../helpers/slack-app-setup';
import { startSlackFake, type Posted, type SlackFake } from '../helpers/slack-fake';
import { describeAdapterContract, userWithAssistant, type Connected, type ContractPerson, type Conversation, type RecordedMessage } from './adapter-contract';

/*
 * Slack against the channel port's contract (adapter-contract.ts): an assistant's own workspace app
 * created, given its credentials and installed through the API and the OAuth flow as its owner
 * does it, the loopback Slack (tests/helpers/slack-fake.ts) signing events and presses with the
 * app's signing secret as Slack does. The conversations are each person's DM with the app: a
 * mention in a channel is answered in the writer's DM (slack.int.test.ts), so the adapter answers
 * in no room.
 *
 * In the stand-in's terms a message is its channel and ts; the fixture names it as the adapter's
 * references do (`<ts>@<DM id>`: the thread names the person, the DM is where the message is), and
 * a button by its action (`a:` approve, `r:` reject) and the value it carries.
 */

const app = useTestServer();
let slack: SlackFake;
const VARS = ['STEWARD_SLACK_API_URL', 'STEWARD_SLACK_FILES_URL', 'SLACK_OAUTH_TOKEN_URL', 'STEWARD_PROVIDER_ALLOWED_RANGES'];
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  slack = await startSlackFake();
  Object.assign(process.env, { STEWARD_SLACK_API_URL: slack.apiUrl, STEWARD_SLACK_FILES_URL: slack.filesUrl, SLACK_OAUTH_TOKEN_URL: slack.tokenUrl, STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32' });
});
afterAll(async () => {
  await slack?.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

let counter = 0;
const newTs = () => `${Math.floor(Date.now() / 1000)}.${String(++counter).padStart(6, '0')}`;
const dmOf = (userId: string) => `D${userId.slice(1)}`;
const idIn = (channel: string, ts: string) => (channel.startsWith('D') ? `${ts}@${channel}` : ts);

async function connect(): Promise<Connected> {
  const owner = await userWithAssistant(app(), await newAccount(app()));
  const team = `TC${++counter}X${Date.now() % 100_000}`;
  const made = await slackAppInstalled(app(), slack, owner, { team, authedUser: `UI${counter}INSTALL`, botUserId: `UB${counter}BOT` });
  const connection = await slackAdapter.connection(app().database.db, made.appId);
  if (!connection) throw new Error('the app’s connection was not found');

  const dms = new Set<string>();
  const request = (r: { headers: Headers; rawBody: Buffer }, webhook: 'events' | 'interactivity'): WebhookRequest => ({ ...r, connection, webhook });
  /** One callback as Slack sends it: signed with the app's secret, unsigned, with another secret, or five minutes old. */
  function delivered(build: (opts: { unsigned?: boolean; secret?: string; timestamp?: number }) => { headers: Headers; rawBody: Buffer }, webhook: 'events' | 'interactivity') {
    return {
      genuine: request(build({}), webhook),
      unsigned: request(build({ unsigned: true }), webhook),
      wronglySigned: request(build({ secret: 'not-the-signing-secret' }), webhook),
      stale: request(build({ timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }), webhook),
    };
  }
  const event = (e: Record<string, unknown>) => {
    const eventId = `Ev${randomBytes(6).toString('hex')}`;
    return delivered((opts) => slack.eventRequest(made.secret, { team, eventId, event: e }, opts), 'events');
  };
  const dmEvent = (from: ContractPerson, where: Conversation, more: Record<string, unknown>) => {
    const ts = newTs();
    return event({ type: 'message', channel_type: 'im', channel: where.wireId, user: from.userId, ts, event_ts: ts, ...more });
  };
  const buttonsOf = (m: Posted) =>
    ((m.blocks ?? []).find((b) => b.type === 'actions')?.elements as Array<{ action_id: string; value: string; text: { text: string } }> | undefined)?.map((x) => ({
      text: x.text.text,
      data: `${x.action_id === APPROVE_ACTION ? 'a' : x.action_id === REJECT_ACTION ? 'r' : x.action_id}:${x.value}`,
    })) ?? [];
  const mine = <T extends { channel: string }>(xs: T[]) => xs.filter((x) => dms.has(x.channel));
  const sharedAsSent = () =>
    mine(slack.shared).map((x) => ({ order: x.order, m: { wireId: x.channel, id: idIn(x.channel, `files:${x.files.map((f) => f.id).join(',')}`), text: x.text ?? '', replyTo: null, buttons: [] } }));

  return {
    connection,
    newPerson() {
      const userId = `U${++counter}P${randomBytes(3).toString('hex').toUpperCase()}`;
      slack.addUser({ id: userId, team, name: `Person ${counter}`, email: `${userId.toLowerCase()}@people.example` });
      dms.add(dmOf(userId));
      return { workspaceId: team, userId };
    },
    direct: (p) => ({ label: 'DM', audience: 'direct', wireId: dmOf(p.userId) }),
    others: () => [],
    address: (p) => `${p.userId.toLowerCase()}@people.example`,
    message: (from, where, text) => dmEvent(from, where, { text }),
    messageWithFile(from, where, file) {
      const shared = slack.shareFile({ team, name: file.filename, mimetype: file.contentType, content: file.content });
      return dmEvent(from, where, { subtype: 'file_share', text: '', files: [shared] });
    },
    malformed: () => delivered((opts) => slack.eventRequest(made.secret, { team, eventId: '', event: { type: 'message' } }, opts), 'events'),
    notAMessage: (from, where) => dmEvent(from, where, { subtype: 'message_changed', text: 'edited' }),
    press(from, on, data) {
      const at = data.indexOf(':');
      const action = data.slice(0, at);
      const actionId = action === 'a' ? APPROVE_ACTION : action === 'r' ? REJECT_ACTION : data;
      const message = slack.posted.find((m) => idIn(m.channel, m.ts) === on.id)!;
      const trigger = randomBytes(4).toString('hex');
      return delivered((opts) => slack.pressRequest(made.secret, { team, user: from.userId, message, actionId, trigger }, opts), 'interactivity');
    },
    sent: (): RecordedMessage[] =>
      [...mine(slack.posted).map((m) => ({ order: m.order ?? 0, m: { wireId: m.channel, id: idIn(m.channel, m.ts), text: m.text, replyTo: m.threadTs ? idIn(m.channel, m.threadTs) : null, buttons: buttonsOf(m) } })), ...sharedAsSent()]
        .sort((x, y) => x.order - y.order)
        .map((x) => x.m),
    files: () => mine(slack.shared).flatMap((x) => x.files.map((f) => ({ wireId: x.channel, id: idIn(x.channel, `files:${x.files.map((g) => g.id).join(',')}`), filename: f.filename, contentType: f.contentType, content: f.content }))),
    edits: () => mine(slack.updates).map((u) => ({ wireId: u.channel, id: idIn(u.channel, u.ts), text: u.text, buttons: ((u.blocks as Array<{ type: string }> | undefined) ?? []).filter((b) => b.type === 'actions').length })),
    acknowledged: () => mine(slack.ephemeral).map((x) => x.text),
    refuseNext(what) {
      slack.state.failNext = what;
    },
  };
}

describeAdapterContract({ adapter: slackAdapter, db: () => app().database.db, provesSender: true, connect });
