import { eq } from 'drizzle-orm';
import { calendarConnections, calendarEvents, calendars, chatTurns, handoffs, tasks } from '@/db/schema';
import { CALDAV_SECRET } from '@/server/calendars/connection-provider';
import { sealJson } from '@/server/secrets/sealed';
import { finishTurn } from '@/server/chats/turn-run';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import { stageDispatch, submitCart } from '@/server/approvals/staging';
import { issueCode } from '@/server/identifiers/verification';
import type { TestServer } from '../helpers/server';
import type { AccountFixture } from '../helpers/client';
import { call, newUser, userKey } from '../helpers/client';
import { startTelegramFake, type TelegramFake } from '../helpers/telegram-fake';
import { made, madeKey, ownedOrg, rand } from './fixture-kit';
import { leadTeam, teamFixtures } from './team-fixtures';

export { leadTeam, ownedOrg };

/**
 * Who owns the resources: a user of `account` (with their user key), and what the fixtures
 * need from the caller's environment: `publishTxt` (a loopback DNS server) lets a domain
 * verify; without it, verification is simply refused.
 */
export type Owner = {
  account: AccountFixture;
  user: { id: string; email: string; teamId: string };
  userKey: string;
  publishTxt?: (name: string, value: string) => void;
};

/** The path parameters naming the resource, plus anything a body or the owner's credential needs. */
export type Made = Record<string, string>;
export type Credential = { key: string; as?: string };
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type MethodFixture = {
  /** A valid body: the owner's call must succeed with it, so a refusal is about the resource. */
  body?: (made: Made, owner: Owner) => unknown;
  /** The request uses the resource up (delete, revoke, release…): the owner's proof and the refusals each get a fresh one. */
  spends?: true;
  /** This method needs a different resource than the path's other methods. */
  create?: (server: TestServer, owner: Owner) => Promise<Made>;
  /** Who proves the owner reaches it, when not the fixture's default. */
  by?: (made: Made, owner: Owner) => Credential;
};

/**
 * How the security suite finds a real resource for an endpoint with path parameters.
 * `create` makes a fresh one owned by `owner` (every call) and returns what names it.
 * The owner must reach it with 2xx (`by`, default: the owner's user key for `user`, the
 * account key otherwise); then another account must get 404, and:
 * `ownership: 'user'`: another user of the same account must get 404 too.
 * `ownership: 'organization'`: the key of another organization of the account must get 404 too.
 * `ownership: 'account'`: shared inside the account.
 */
export type Fixture = {
  ownership: 'user' | 'organization' | 'account';
  create: (server: TestServer, owner: Owner) => Promise<Made>;
  by?: (made: Made, owner: Owner) => Credential;
  methods?: Partial<Record<Method, MethodFixture>>;
};


/** An open handoff of the owner (as request_handoff leaves one; `active` once a session link was issued). */
export async function ownHandoff(server: TestServer, owner: Owner, status: 'pending' | 'active' = 'pending'): Promise<Made> {
  const [h] = await server.database.db
    .insert(handoffs)
    .values({ accountId: owner.account.accountId, userId: owner.user.id, actionType: 'login', prompt: 'Sign in', status, expiresAt: new Date(Date.now() + 3_600_000) })
    .returning();
  return { handoffId: h.id };
}

/** One assistant per owner for their chats (hiring is limited like any write). */
const chatAssistants = new Map<string, string>();
export async function ownChat(s: TestServer, o: Owner): Promise<Made> {
  let assistantId = chatAssistants.get(o.user.id);
  if (!assistantId) {
    assistantId = (await made('assistant', call(s, `/users/${o.user.id}/assistants`, { key: o.userKey, body: { name: `Chatty ${rand()}` } }))).assistant.id as string;
    chatAssistants.set(o.user.id, assistantId);
  }
  const chat = await made('chat', call(s, '/chats', { key: o.userKey, body: { assistantId } }));
  return { chatId: chat.chat.id as string };
}

/**
 * A chat with one finished turn (its events and usage are there to read). The turn is started over
 * HTTP; with no engine in these files it would wait for one, so it is ended through the service the
 * engine's last step uses.
 */
export async function chatWithTurn(s: TestServer, o: Owner): Promise<Made> {
  const { chatId } = await ownChat(s, o);
  const aborted = new AbortController();
  const r = await fetch(`${s.baseUrl}/chats/${chatId}/process`, { method: 'POST', headers: { Authorization: `Bearer ${o.userKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ message: { content: 'Hello' } }), signal: aborted.signal });
  const reader = r.body!.getReader();
  let text = '';
  while (!/"executionId":"([0-9a-f]+)"/.test(text)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += new TextDecoder().decode(chunk.value);
  }
  aborted.abort();
  const executionId = /"executionId":"([0-9a-f]+)"/.exec(text)?.[1];
  if (r.status !== 200 || !executionId) throw new Error(`fixture: process answered ${r.status} ${text.slice(0, 300)}`);
  await s.database.db.update(chatTurns).set({ status: 'running' }).where(eq(chatTurns.id, executionId));
  await finishTurn(s.database.db, executionId, { kind: 'answered', text: 'Hello to you' });
  return { chatId, executionId };
}

export const ownWorkflow = async (s: TestServer, o: Owner): Promise<Made> => ({
  skillId: (
    await made('workflow', call(s, '/skills', { key: o.userKey, body: { kind: 'workflow', name: `wf-${rand()}`, title: 'Brief', description: 'Brief me', triggers: [{ on: 'manual' }] } }))
  ).skill.id as string,
});

/** An MCP skill behind the MCP authorization flow: a loopback OAuth MCP server, started once. */
let oauthServer: Promise<{ url: string }> | null = null;
const ownOauthSkill = async (s: TestServer, o: Owner): Promise<Made> => {
  process.env.STEWARD_MCP_ALLOWED_RANGES = '127.0.0.0/8';
  oauthServer ??= import('../helpers/mcp-server').then((m) => m.startOauthMcpServer());
  const { url } = await oauthServer;
  const body = { kind: 'mcp', name: `oauth-${rand()}`, mcpServerUrl: url, mcpAuthType: 'oauth' };
  return { skillId: (await made('oauth skill', call(s, '/skills', { key: o.userKey, body }))).skill.id as string };
};

export const ownSegment = async (s: TestServer, o: Owner): Promise<Made> => ({
  segmentId: (await made('segment', call(s, '/model-tier-segments', { key: o.account.key, body: { name: `seg ${rand()}`, chat: 'high' } }))).segment.id as string,
});

const accountKey = (_m: Made, o: Owner): Credential => ({ key: o.account.key });

/** A webhook endpoint at a public address literal (no DNS on this machine; nothing is delivered without an engine). */
const ownWebhook = async (s: TestServer, o: Owner) => ({
  webhookId: (await made('webhook', call(s, '/webhooks', { key: o.account.key, body: { url: 'https://93.184.215.14/hooks' } }))).webhook.id as string,
});

export const ownedContact = async (s: TestServer, o: Owner) => {
  const r = await made('contact', call(s, '/contacts', { key: o.userKey, body: { email: `c${rand()}@example.org` } }));
  return { contactId: r.contact.id };
};
/** Two contacts of the owner, the first related to the second. */
const relatedContacts = async (s: TestServer, o: Owner) => {
  const { contactId, otherContactId } = await twoContacts(s, o);
  const related = await call(s, `/contacts/${contactId}/relationships`, { key: o.userKey, body: { toContactId: otherContactId, type: 'colleague' } });
  if (related.status !== 201) throw new Error(`fixture: relationship ${related.status} ${JSON.stringify(related.body)}`);
  return { contactId, relationshipId: related.body.relationship.id as string };
};

const twoContacts = async (s: TestServer, o: Owner) => {
  const { contactId } = await ownedContact(s, o);
  const other = await ownedContact(s, o);
  return { contactId, otherContactId: other.contactId };
};

/** The signed upload URL names the deployment's public origin; its path and query carry the signature. */
const onServer = (s: TestServer, signed: string) => {
  const u = new URL(signed);
  return new URL(u.pathname + u.search, s.baseUrl).toString();
};
const pendingFile = async (s: TestServer, o: Owner) => {
  const r = await made('upload', call(s, '/drive-files/upload', { key: o.userKey, body: { name: 'notes.txt', size: 5, mimeType: 'text/plain' } }));
  return { fileId: r.fileId as string, url: onServer(s, r.url) };
};
const uploadedFile = async (s: TestServer, o: Owner) => {
  const f = await pendingFile(s, o);
  const put = await fetch(f.url, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'hello' });
  if (put.status !== 200) throw new Error(`fixture: PUT bytes answered ${put.status} ${await put.text()}`);
  return f;
};
export const readyFile = async (s: TestServer, o: Owner) => {
  const f = await uploadedFile(s, o);
  await made('confirm', call(s, `/drive-files/${f.fileId}/confirm`, { key: o.userKey, body: { size: 5 } }));
  return { fileId: f.fileId };
};

export const freshOrg = async (s: TestServer, o: Owner) => ({
  orgId: (await made('organization', call(s, '/organizations', { key: o.account.key, body: { name: `Doomed ${rand()}` } }))).organization.id as string,
});
/** A credit budget of a fresh organization (one budget per scope, so a new organization each time). */
const orgBudget = async (s: TestServer, o: Owner) => {
  const { orgId } = await freshOrg(s, o);
  const r = await made('budget', call(s, '/budgets', { key: o.account.key, body: { scope: 'organization', scopeId: orgId, limitCredits: 10 } }));
  return { budgetId: r.budget.id as string };
};
const orgMember = async (s: TestServer, o: Owner) => {
  const { orgId } = await ownedOrg(s, o);
  const u = await newUser(s, o.account, { onboard: false });
  await made('organization member', call(s, `/users/${u.id}`, { key: o.account.key, method: 'PUT', body: { organization: orgId, organizationRole: 'member' } }));
  return { orgId, userId: u.id };
};
const orgDomain = async (s: TestServer, o: Owner) => {
  const { orgId } = await ownedOrg(s, o);
  const r = await made('domain', call(s, `/organizations/${orgId}/domains`, { key: o.account.key, body: { domain: `d${rand()}.example` } }));
  return { orgId, domainId: r.domain.id as string, txtName: r.domain.txtRecordName as string, txtValue: r.domain.txtRecordValue as string };
};
const publishedDomain = async (s: TestServer, o: Owner) => {
  const d = await orgDomain(s, o);
  o.publishTxt?.(d.txtName, d.txtValue);
  return d;
};

/** A fresh user of the owner's account who owns their own team (their key is `key`), so team changes never disturb the owner. */
const ownIdentifier = async (s: TestServer, o: Owner) => {
  const r = await made('identifier', call(s, '/identifiers', { key: o.userKey, body: { type: 'custom', value: `handle-${rand()}` } }));
  return { identifierId: r.identifier.id as string };
};
/** An unverified email of the owner, and (for verify) the code it was sent, issued straight into the store as a mailbox would have received it. */
const ownUnverifiedEmail = async (s: TestServer, o: Owner) => {
  const r = await made('identifier', call(s, '/identifiers', { key: o.userKey, body: { type: 'email', value: `alt-${rand()}@example.org` } }));
  return { identifierId: r.identifier.id as string };
};
const ownCodeToVerify = async (s: TestServer, o: Owner) => {
  const { identifierId } = await ownUnverifiedEmail(s, o);
  const { code } = await issueCode(s.database.db, { id: identifierId, accountId: o.account.accountId, userId: o.user.id });
  return { identifierId, code };
};
/** make-primary takes only a verified email: the owner's own, which is already primary (the call is then a no-op). */
const ownVerifiedEmail = async (s: TestServer, o: Owner) => {
  const r = await made('identifiers', call(s, '/identifiers', { key: o.userKey }));
  const email = (r.identifiers as Array<{ id: string; type: string; value: string }>).find((i) => i.type === 'email' && i.value === o.user.email);
  if (!email) throw new Error(`fixture: the owner has no email identifier ${JSON.stringify(r)}`);
  return { identifierId: email.id };
};

export const ownAssistant = async (s: TestServer, o: Owner) => {
  const r = await made('assistant', call(s, `/users/${o.user.id}/assistants`, { key: o.userKey, body: { name: `Helper ${rand()}` } }));
  return { assistantId: r.assistant.id as string, userId: o.user.id };
};
/** A loopback Telegram Bot API for the bot fixtures, started the first time one is needed (and left to the process's end). */
let telegram: Promise<TelegramFake> | null = null;
function telegramFake() {
  telegram ??= startTelegramFake().then((tg) => {
    Object.assign(process.env, { STEWARD_TELEGRAM_API_URL: tg.apiUrl, STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32' });
    return tg;
  });
  return telegram;
}
/** The owner's assistant with its own Telegram bot connected; `token` is a second bot of the same owner, for replacing it. */
export const ownTelegramBot = async (s: TestServer, o: Owner) => {
  const tg = await telegramFake();
  const a = await ownAssistant(s, o);
  await made('telegram bot', call(s, `/assistants/${a.assistantId}/telegram-bot`, { method: 'PUT', key: o.userKey, body: { token: tg.createBot().token } }));
  return { ...a, token: tg.createBot().token };
};
export const ownUser = async (_s: TestServer, o: Owner) => ({ userId: o.user.id });
/** A CalDAV connection of the owner with one calendar and an event in it, stored as a sync leaves them (no server is called). */
export async function ownCalendarConnection(s: TestServer, o: Owner): Promise<Made> {
  const db = s.database.db;
  const [c] = await db
    .insert(calendarConnections)
    .values({ accountId: o.account.accountId, userId: o.user.id, provider: 'caldav', url: 'https://dav.example.com/', username: `fixture-${rand()}`, secret: await sealJson(db, { password: 'fixture' }, CALDAV_SECRET), lastSyncedAt: new Date() })
    .returning();
  const [k] = await db.insert(calendars).values({ connectionId: c.id, userId: o.user.id, remoteId: `https://dav.example.com/${c.id}/`, name: 'Fixture calendar' }).returning();
  const start = new Date(Date.now() + 86_400_000);
  await db.insert(calendarEvents).values({ calendarId: k.id, userId: o.user.id, providerEventId: `/${c.id}/e.ics`, title: 'Private meeting', start, end: new Date(start.getTime() + 3_600_000), rangeEnd: new Date(start.getTime() + 3_600_000) });
  return { connectionId: c.id, calendarId: k.id };
}
/** The owner's workspace Slack app for an assistant of theirs (pending its credentials). */
const ownSlackApp = async (s: TestServer, o: Owner) => {
  const { assistantId } = await ownAssistant(s, o);
  const r = await made('slack app', call(s, `/assistants/${assistantId}/slack-apps`, { key: o.userKey, body: { kind: 'workspace', botDisplayName: 'Fixture' } }));
  return { appId: r.slackApp.id as string };
};

const freshUser = async (s: TestServer, o: Owner) => ({ userId: (await newUser(s, o.account, { onboard: false })).id });
const ownKey = async (s: TestServer, o: Owner) => ({ keyId: (await made('api key', call(s, '/api-keys', { key: o.userKey, body: { label: 'target' } }))).apiKey.id as string });
/** Only a revoked key can be deleted. */
const ownRevokedKey = async (s: TestServer, o: Owner) => {
  const k = await ownKey(s, o);
  await made('revoke', call(s, `/api-keys/${k.keyId}/revoke`, { key: o.userKey, method: 'POST' }));
  return k;
};
export const ownMemory = async (s: TestServer, o: Owner) => ({ memoryId: (await made('memory', call(s, '/memories', { key: o.userKey, body: { content: 'secret note' } }))).memory.id as string });

/** A fresh task of the owner, for their assistant "Task helper" (hiring it again returns the same one). */
export const ownTask = async (s: TestServer, o: Owner) => {
  const a = await made('assistant', call(s, `/users/${o.user.id}/assistants`, { key: o.userKey, body: { name: 'Task helper' } }));
  const t = await made('task', call(s, '/tasks', { key: o.userKey, body: { title: `Task ${rand()}`, assistant: a.assistant.id } }));
  return { taskId: t.task.id as string };
};
/** mark-not-done reopens only a finished task. */
const doneTask = async (s: TestServer, o: Owner) => {
  const t = await ownTask(s, o);
  await made('mark-done', call(s, `/tasks/${t.taskId}/mark-done`, { key: o.userKey, method: 'POST' }));
  return t;
};

/** A task the assistant proposed and holds for the owner (what create_task with needsApproval makes), written through the database. */
export const proposedTask = async (s: TestServer, o: Owner) => {
  const { taskId } = await ownTask(s, o);
  await s.database.db.update(tasks).set({ createdBy: 'agent', proposalStatus: 'pending_user_approval' }).where(eq(tasks.id, taskId));
  return { taskId };
};

const ownRecipientException = async (s: TestServer, o: Owner) => {
  const r = await made(
    'recipient exception',
    call(s, `/users/${o.user.id}/preferences/supervision/exceptions`, { key: o.userKey, body: { match: { kind: 'domain', value: `p${rand()}.example` }, mode: 'auto', appliesTo: ['messaging'] } }),
  );
  return { userId: o.user.id, exceptionId: r.recipientException.id as string };
};

/**
 * A cart of the owner waiting for approval (email as the user is manual for a new user): a real
 * task processed, its run stages an email as the staging tool does (as the owner), then submits.
 */
const pendingCart = async (s: TestServer, o: Owner) => {
  const { taskId } = await ownTask(s, o);
  const processed = await made('process', call(s, `/tasks/${taskId}/process`, { key: o.userKey, body: { message: 'Write to Bob' } }));
  const runId = processed.process.executionId as string;
  const db = s.database.db;
  const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
  const actor = await ownerActor(db, task, runId);
  if (!actor) throw new Error('fixture: the task owner cannot act');
  const { cartId } = await db.transaction((tx) =>
    stageDispatch(tx, actor, task, runId, { type: 'email', platform: 'email', actionType: 'email_as_user', to: ['bob@example.org'], subject: 'Hello', body: 'Hi Bob' }),
  );
  const outcome = await db.transaction((tx) => submitCart(tx, cartId));
  if (outcome.status !== 'pending_approval') throw new Error(`fixture: the cart is ${outcome.status}, not pending_approval`);
  const read = await made('cart', call(s, `/portal/carts/${cartId}`, { key: o.userKey }));
  return { cartId, index: '0', contentHash: read.cart.contentHash as string };
};

/** A cart approved and released: undo works within its window (30 s for a new user). */
const releasedCart = async (s: TestServer, o: Owner) => {
  const m = await pendingCart(s, o);
  await made('approve', call(s, `/portal/carts/${m.cartId}/approve`, { key: o.userKey, body: { contentHash: m.contentHash } }));
  return m;
};

/** Keyed by path template; each method at that path may refine it. Each area adds its own entries. */
export const fixtures: Record<string, Fixture> = {
  '/calendar-connections/{connectionId}': { ownership: 'user', create: ownCalendarConnection, methods: { DELETE: { spends: true } } },
  '/assistants/{assistantId}': {
    ownership: 'user',
    create: ownAssistant,
    methods: { PUT: { body: () => ({ tagline: 'changed' }) }, DELETE: { spends: true } },
  },
  '/assistants/{assistantId}/telegram-bot': {
    ownership: 'user',
    create: ownTelegramBot,
    methods: { PUT: { body: (m) => ({ token: m.token }) }, DELETE: { spends: true } },
  },
  '/assistants/{assistantId}/telegram-bot/link': { ownership: 'user', create: ownTelegramBot },
  '/assistants/{assistantId}/slack-apps': { ownership: 'user', create: ownAssistant, methods: { POST: { body: () => ({ kind: 'workspace', botDisplayName: 'Bot' }) } } },
  // Slack apps and capability switches (issue 33): the owner's own workspace app; an organization's switches.
  '/slack-apps/{appId}': { ownership: 'user', create: ownSlackApp },
  '/slack-apps/{appId}/credentials': {
    ownership: 'user',
    create: ownSlackApp,
    methods: { PUT: { body: () => ({ clientId: '1234567890.1234567890', clientSecret: `cs-${rand()}-secret`, signingSecret: `ss-${rand()}-secret` }) } },
  },
  '/organizations/{orgId}/settings/capabilities': { ownership: 'organization', create: ownedOrg, methods: { PATCH: { body: () => ({ capabilities: { slackWorkspaceApps: 'off' } }) } } },
  '/users/{userId}/assistants': { ownership: 'user', create: ownUser, methods: { POST: { body: () => ({ name: `Hired ${rand()}` }) } } },
  '/users/{userId}/assistants/{assistantId}': { ownership: 'user', create: ownAssistant, methods: { DELETE: { spends: true } } },
  '/users/{userId}/assistants/{assistantId}/hire': { ownership: 'user', create: ownAssistant },
  '/users/{userId}/assistants/{assistantId}/primary': { ownership: 'user', create: ownAssistant },
  '/identifiers/{identifierId}': { ownership: 'user', create: ownIdentifier, methods: { DELETE: { spends: true } } },
  '/identifiers/{identifierId}/make-primary': { ownership: 'user', create: ownVerifiedEmail },
  '/identifiers/{identifierId}/verification': { ownership: 'user', create: ownUnverifiedEmail },
  '/identifiers/{identifierId}/verify': { ownership: 'user', create: ownCodeToVerify, methods: { POST: { body: (m) => ({ code: m.code }) } } },
  // Linking needs an account-wide credential; linking to its own user is a valid no-op.
  '/identifiers/{identifierId}/link': { ownership: 'user', create: ownIdentifier, by: accountKey, methods: { POST: { body: (_m, o) => ({ userId: o.user.id }) } } },
  ...teamFixtures,
  '/organizations/{orgId}': {
    ownership: 'organization',
    create: ownedOrg,
    methods: { PUT: { body: () => ({ name: 'Renamed org' }) }, DELETE: { create: freshOrg, spends: true } },
  },
  '/organizations/{orgId}/scim/token': { ownership: 'organization', create: ownedOrg },
  '/organizations/{orgId}/sso': { ownership: 'organization', create: ownedOrg, methods: { PUT: { body: () => ({ enforced: false }) } } },
  '/organizations/{orgId}/domains': { ownership: 'organization', create: ownedOrg, methods: { POST: { body: () => ({ domain: `new${rand()}.example` }) } } },
  '/organizations/{orgId}/domains/{domainId}': { ownership: 'organization', create: orgDomain, methods: { PUT: { body: () => ({ autoJoin: true }) }, DELETE: { spends: true } } },
  '/organizations/{orgId}/domains/{domainId}/verify': { ownership: 'organization', create: publishedDomain, methods: { POST: { spends: true } } },
  '/organizations/{orgId}/members': { ownership: 'organization', create: ownedOrg, methods: { POST: { body: () => ({ email: `someone${rand()}@example.org` }) } } },
  '/organizations/{orgId}/members/{userId}': { ownership: 'organization', create: orgMember, methods: { DELETE: { spends: true } } },
  '/organizations/{orgId}/settings/model-tiers': { ownership: 'organization', create: ownedOrg, methods: { PATCH: { body: () => ({ chat: 'high' }) } } },
  '/drive-files/{fileId}': { ownership: 'user', create: pendingFile },
  '/drive-files/{fileId}/download': { ownership: 'user', create: readyFile },
  '/drive-files/{fileId}/confirm': { ownership: 'user', create: uploadedFile, methods: { POST: { body: () => ({ size: 5 }) } } },
  '/contacts/{contactId}': { ownership: 'user', create: ownedContact, methods: { PUT: { body: () => ({ name: 'Changed' }) }, DELETE: { spends: true } } },
  '/contacts/{contactId}/relationships': { ownership: 'user', create: twoContacts, methods: { POST: { body: (m) => ({ toContactId: m.otherContactId, type: 'colleague' }) } } },
  '/contacts/{contactId}/relationships/{relationshipId}': { ownership: 'user', create: relatedContacts, methods: { DELETE: { spends: true } } },
  '/contacts/{contactId}/merge': { ownership: 'user', create: twoContacts, methods: { POST: { body: (m) => ({ mergeContactId: m.otherContactId }), spends: true } } },
  '/memories/{memoryId}': { ownership: 'user', create: ownMemory, methods: { PUT: { body: () => ({ content: 'overwritten' }) }, DELETE: { spends: true } } },
  '/tasks/{taskId}': { ownership: 'user', create: ownTask, methods: { PUT: { body: () => ({ modelTier: 'high' }) }, DELETE: { spends: true } } },
  '/tasks/{taskId}/process': { ownership: 'user', create: ownTask, methods: { POST: { body: () => ({ message: 'Please go on' }), spends: true } } },
  '/tasks/{taskId}/stop': { ownership: 'user', create: ownTask, methods: { POST: { spends: true } } },
  '/tasks/{taskId}/mark-done': { ownership: 'user', create: ownTask },
  '/tasks/{taskId}/mark-not-done': { ownership: 'user', create: doneTask, methods: { POST: { spends: true } } },
  '/tasks/{taskId}/feedback': { ownership: 'user', create: ownTask, methods: { POST: { body: () => ({ status: 'like' }) } } },
  '/tasks/{taskId}/activities': { ownership: 'user', create: ownTask },
  '/tasks/{taskId}/usage': { ownership: 'user', create: ownTask },
  '/tasks/{taskId}/approve': { ownership: 'user', create: proposedTask, methods: { POST: { body: () => ({ reason: 'Go ahead' }), spends: true } } },
  '/tasks/{taskId}/decline': { ownership: 'user', create: proposedTask, methods: { POST: { body: () => ({ reason: 'Not now' }), spends: true } } },
  '/users/{userId}': {
    ownership: 'user',
    create: ownUser,
    methods: {
      // Changing and deleting users is for the account (or an organization admin); a user changes themself with PATCH /profile.
      PUT: { by: accountKey, body: () => ({ firstName: 'Renamed' }) },
      DELETE: { by: accountKey, create: freshUser, spends: true },
    },
  },
  '/users/{userId}/preferences/scheduling': {
    ownership: 'user',
    create: ownUser,
    methods: { PUT: { body: () => ({ schedulingPreferences: { availability: { workingHours: { TU: [{ start: '10:00', end: '12:00' }] } } } }) } },
  },
  '/users/{userId}/preferences/supervision/matrix': { ownership: 'user', create: ownUser, methods: { PATCH: { body: () => ({ matrix: { calendar: { mode: 'manual' } } }) } } },
  '/users/{userId}/preferences/supervision/matrix/reset': { ownership: 'user', create: ownUser },
  '/users/{userId}/preferences/supervision/exceptions': {
    ownership: 'user',
    create: ownUser,
    methods: { POST: { body: () => ({ match: { kind: 'domain', value: `p${rand()}.example` }, mode: 'auto', appliesTo: ['messaging'] }) } },
  },
  '/users/{userId}/preferences/supervision/exceptions/{exceptionId}': { ownership: 'user', create: ownRecipientException, methods: { DELETE: { spends: true } } },
  '/portal/carts/{cartId}': { ownership: 'user', create: pendingCart },
  '/workspace/handoff/{handoffId}/session': { ownership: 'user', create: (s, o) => ownHandoff(s, o) },
  '/workspace/handoff/{handoffId}/complete': { ownership: 'user', create: (s, o) => ownHandoff(s, o, 'active'), methods: { POST: { spends: true } } },
  '/workspace/handoff/{handoffId}/defer': { ownership: 'user', create: (s, o) => ownHandoff(s, o), methods: { POST: { body: () => ({ message: 'Later' }), spends: true } } },
  '/workspace/handoff/{handoffId}/decline': { ownership: 'user', create: (s, o) => ownHandoff(s, o), methods: { POST: { spends: true } } },
  '/chats/{chatId}': { ownership: 'user', create: ownChat, methods: { DELETE: { spends: true } } },
  '/chats/{chatId}/messages': { ownership: 'user', create: ownChat, methods: { POST: { body: () => ({ content: 'Hello' }) } } },
  '/chats/{chatId}/process': { ownership: 'user', create: ownChat, methods: { POST: { body: () => ({ message: { content: 'Hello' } }) } } },
  '/chats/{chatId}/usage': { ownership: 'user', create: ownChat },
  '/chats/{chatId}/runs/{executionId}/events': { ownership: 'user', create: chatWithTurn },
  '/skills/{skillId}': { ownership: 'user', create: ownWorkflow, methods: { PATCH: { body: () => ({ title: 'Changed' }) }, DELETE: { spends: true } } },
  '/skills/{skillId}/run': { ownership: 'user', create: ownWorkflow },
  '/skills/{skillId}/firings': { ownership: 'user', create: ownWorkflow },
  '/skills/{skillId}/oauth/start': { ownership: 'user', create: ownOauthSkill, methods: { POST: { body: () => ({}) } } },
  '/model-tier-segments/{segmentId}': { ownership: 'account', create: ownSegment, by: accountKey, methods: { PATCH: { body: () => ({ chat: 'low' }) }, DELETE: { spends: true } } },
  '/portal/carts/{cartId}/snapshots': { ownership: 'user', create: pendingCart },
  '/portal/carts/{cartId}/dispatches/{index}/undo': { ownership: 'user', create: releasedCart, methods: { POST: { spends: true } } },
  '/portal/carts/{cartId}/approve': { ownership: 'user', create: pendingCart, methods: { POST: { body: (m) => ({ contentHash: m.contentHash }), spends: true } } },
  '/portal/carts/{cartId}/cancel': { ownership: 'user', create: pendingCart, methods: { POST: { body: () => ({ reason: 'Not now' }), spends: true } } },
  '/portal/carts/{cartId}/dispatches/{index}/edit': { ownership: 'user', create: pendingCart, methods: { PATCH: { body: () => ({ body: 'Hi Bob, edited' }) } } },
  '/portal/carts/{cartId}/dispatches/{index}': {
    ownership: 'user',
    create: pendingCart,
    methods: { PATCH: { body: () => ({ subject: 'Hello again' }) }, DELETE: { spends: true } },
  },
  '/webhooks/{webhookId}': { ownership: 'account', create: ownWebhook, by: accountKey, methods: { PATCH: { body: () => ({ description: 'Changed' }) }, DELETE: { spends: true } } },
  '/webhooks/{webhookId}/deliveries': { ownership: 'account', create: ownWebhook, by: accountKey },
  '/webhooks/{webhookId}/test': { ownership: 'account', create: ownWebhook, by: accountKey },
  '/budgets/{budgetId}': { ownership: 'organization', create: orgBudget, methods: { PATCH: { body: () => ({ limitCredits: 20 }) }, DELETE: { spends: true } } },
  '/budgets/{budgetId}/top-up': { ownership: 'organization', create: orgBudget, methods: { POST: { body: () => ({ credits: 5 }) } } },
  '/api-keys/{keyId}': { ownership: 'user', create: ownRevokedKey, methods: { DELETE: { spends: true } } },
  '/api-keys/{keyId}/revoke': { ownership: 'user', create: ownKey, methods: { POST: { spends: true } } },
};
