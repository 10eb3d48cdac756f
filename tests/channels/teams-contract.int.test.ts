import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { channelIdentities, teamsConversations } from '@/db/schema';
import type { WebhookRequest } from '@/server/channels/adapter';
import { teamsAdapter } from '@/server/channels/teams/adapter';
import { forgetConnectorKeys } from '@/server/channels/teams/jwt';
import { startBotConnectorFake, type BotConnectorFake } from '../helpers/bot-connector-fake';
import { newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { describeAdapterContract, userWithAssistant, type Connected, type ContractPerson, type RecordedMessage } from './adapter-contract';

/*
 * Teams against the channel port's contract (adapter-contract.ts): the deployment's bot, the
 * loopback Bot Connector (tests/helpers/bot-connector-fake.ts) signing activities with its
 * OpenID keys as the Connector does. Each person is a user of the account with an assistant, in a
 * connected tenant's directory, already linked (the identity the directory match records) and with
 * a 1:1 chat with the bot (the conversation the bot keeps when they first write): a bot can only
 * write to someone who wrote to it. Teams serves no group chats, so there are no other kinds of
 * conversation. A file it sends is offered on a consent card and uploaded once the person allows it
 * (allowFiles presses Allow on each card, as a person does).
 *
 * In the stand-in's terms a message is its conversation and activity ids; the fixture names it as
 * the adapter's references do (`<conversation, base64url>.<activity id>`), and a button by the
 * verb and the data Action.Execute carries (`approve:<binding>` when the data is the binding alone).
 */

const app = useTestServer();
const APP_ID = randomUUID();
const APP_SECRET = 'teams-contract-secret';
let bf: BotConnectorFake;
const VARS = ['TEAMS_CLIENT_ID', 'TEAMS_CLIENT_SECRET', 'STEWARD_TEAMS_TOKEN_URL', 'STEWARD_TEAMS_OPENID_URL', 'STEWARD_PROVIDER_ALLOWED_RANGES', 'STEWARD_TEAMS_FILE_HOSTS'];
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  bf = await startBotConnectorFake({ appId: APP_ID, appSecret: APP_SECRET });
  Object.assign(process.env, { TEAMS_CLIENT_ID: APP_ID, TEAMS_CLIENT_SECRET: APP_SECRET, STEWARD_TEAMS_TOKEN_URL: bf.tokenUrl, STEWARD_TEAMS_OPENID_URL: bf.openIdUrl, STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32', STEWARD_TEAMS_FILE_HOSTS: '127.0.0.1' });
  forgetConnectorKeys();
});
afterAll(async () => {
  await bf?.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Enough people for every check of one connection (each takes a new one). */
const PEOPLE = 20;
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

type Person = { contract: ContractPerson; email: string; member: ReturnType<BotConnectorFake['addMember']>; conversationId: string };

async function connect(): Promise<Connected> {
  const db = app().database.db;
  const acct = await newAccount(app());
  const tenantId = randomUUID();
  const owner = await userWithAssistant(app(), acct);
  const connection = await teamsAdapter.connectionFor(db, owner.assistantId);
  if (!connection) throw new Error('the Teams bot is not configured');

  const people: Person[] = [];
  for (let i = 0; i < PEOPLE; i++) {
    const u = await userWithAssistant(app(), acct);
    const aad = randomUUID();
    const member = bf.addMember({ aadObjectId: aad, name: `Person ${i}`, email: u.email, tenantId });
    const conversationId = bf.newConversationId();
    await db.insert(channelIdentities).values({ accountId: acct.accountId, userId: u.id, provider: 'teams', workspaceId: tenantId, externalUserId: aad });
    await db.insert(teamsConversations).values({ accountId: acct.accountId, userId: u.id, tenantId, aadObjectId: aad, teamsUserId: member.id, botId: `28:${APP_ID}`, conversationId, serviceUrl: bf.serviceUrl });
    people.push({ contract: { workspaceId: tenantId, userId: aad }, email: u.email, member, conversationId });
  }
  let next = 0;
  const who = (p: ContractPerson) => people.find((x) => x.contract.userId === p.userId)!;
  const conversations = new Set(people.map((p) => p.conversationId));
  const allowed = new Set<string>();

  // The bot's webhook connection, as the endpoint hands it to the adapter.
  const webhook = (await teamsAdapter.connection(db, connection.id))!;
  // Signed once per connection: the contract's builders are synchronous, and a token holds for an hour.
  const [good, stranger, expired] = await Promise.all([bf.token(), bf.token({ key: 'stranger' }), bf.token({ expiresIn: -600 })]);
  /** One activity as the Connector posts it: with its token, none, one signed by a key it does not publish, or an expired one. */
  function delivered(activity: Record<string, unknown>) {
    const request = (token: string | null): WebhookRequest => ({
      headers: new Headers(token ? { authorization: `Bearer ${token}` } : {}),
      rawBody: Buffer.from(JSON.stringify(activity)),
      connection: webhook,
    });
    return { genuine: request(good), unsigned: request(null), wronglySigned: request(stranger), stale: request(expired) };
  }
  const idOf = (conversationId: string, activityId: string) => `${b64(conversationId)}.${activityId}`;
  const buttonsOf = (body: Record<string, unknown>) => {
    const card = (body.attachments as Array<{ content?: { actions?: Array<{ title: string; verb: string; data: Record<string, unknown> }> } }> | undefined)?.[0]?.content;
    return (card?.actions ?? []).map((x) => ({ text: x.title, data: `${x.verb}:${Object.keys(x.data).length === 1 && typeof x.data.binding === 'string' ? x.data.binding : JSON.stringify(x.data)}` }));
  };
  const textOf = (body: Record<string, unknown>) => {
    if (typeof body.text === 'string') return body.text;
    const card = (body.attachments as Array<{ content?: { body?: Array<{ text?: string; inlines?: Array<{ text: string }> }> } }> | undefined)?.[0]?.content;
    return (card?.body ?? []).map((b) => b.text ?? (b.inlines ?? []).map((r) => r.text).join('')).join('\n');
  };
  // A file's consent card and the card that opens it once uploaded are the file's, recorded under files().
  const isFileCard = (body: Record<string, unknown>) => String((body.attachments as Array<{ contentType?: string }> | undefined)?.[0]?.contentType ?? '').startsWith('application/vnd.microsoft.teams.card.file.');
  const sent = (): RecordedMessage[] =>
    bf.activities
      .filter((x) => conversations.has(x.conversationId) && !isFileCard(x.body))
      .map((x) => ({ wireId: x.conversationId, id: idOf(x.conversationId, x.id), text: textOf(x.body), replyTo: x.replyTo === null ? null : idOf(x.conversationId, x.replyTo), buttons: buttonsOf(x.body) }));

  return {
    connection,
    newPerson: () => {
      const p = people[next++];
      if (!p) throw new Error('the fixture made too few people');
      return p.contract;
    },
    direct: (p) => ({ label: '1:1 chat', audience: 'direct', wireId: who(p).conversationId }),
    others: () => [],
    address: (p) => who(p).email,
    message: (from, where, text) => delivered(bf.activity(who(from).member, where.wireId, { text })),
    notAMessage: (from, where) => delivered(bf.activity(who(from).member, where.wireId, { type: 'conversationUpdate', membersAdded: [{ id: who(from).member.id }] })),
    press(from, on, data) {
      const at = data.indexOf(':');
      const verb = at > 0 ? data.slice(0, at) : 'approve';
      const value = { action: { type: 'Action.Execute', verb, data: at > 0 ? { binding: data.slice(at + 1) } : data } };
      const activityId = on.id.slice(on.id.indexOf('.') + 1);
      return delivered(bf.activity(who(from).member, on.wireId, { type: 'invoke', name: 'adaptiveCard/action', replyToId: activityId, value }));
    },
    sent,
    files: () =>
      bf.uploads
        .filter((u) => conversations.has(u.conversationId))
        .map((u) => ({ wireId: u.conversationId, id: idOf(u.conversationId, u.cardId), filename: u.name, contentType: (u.contentType ?? '').split(';')[0]!, content: u.bytes })),
    messageWithFile: (from, where, file) => delivered(bf.activity(who(from).member, where.wireId, { text: '', attachments: [bf.sharedFile(file.filename, file.content, file.contentType)] })),
    async allowFiles() {
      // Each card not answered yet: the person presses Allow, the adapter takes the answer, and its upload is awaited.
      for (const card of bf.consentCards().filter((c) => conversations.has(c.conversationId) && !allowed.has(c.id))) {
        allowed.add(card.id);
        const person = people.find((x) => x.conversationId === card.conversationId)!;
        const request = delivered(bf.consentAnswer(person.member, card, 'accept')).genuine;
        if (!(await teamsAdapter.verifyWebhook(db, request)).ok) throw new Error('the consent answer did not verify');
        const event = await teamsAdapter.parseWebhook(db, request);
        if (event.kind !== 'ignored' || !event.afterAnswer) throw new Error(`the consent answer was read as ${event.kind}`);
        await event.afterAnswer();
      }
    },
    edits: () =>
      bf.updates
        .filter((x) => conversations.has(x.conversationId))
        .map((x) => ({ wireId: x.conversationId, id: idOf(x.conversationId, x.activityId), text: textOf(x.body), buttons: buttonsOf(x.body).length })),
    // Teams shows no toast: an invoke's answer carries the outcome (the contract reads it there).
    acknowledged: () => [],
    refuseNext(what) {
      if (what === 'file') bf.state.failNextCard = 404;
      else bf.state.failNext = 404;
    },
  };
}

describeAdapterContract({ adapter: teamsAdapter, db: () => app().database.db, provesSender: true, deploymentBot: true, connect });
