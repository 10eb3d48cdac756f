import { call, newUser } from '../helpers/client';
import type { TestServer } from '../helpers/server';
import {
  chatWithTurn,
  freshOrg,
  leadTeam,
  ownAssistant,
  ownCalendarConnection,
  ownChat,
  ownedContact,
  ownedOrg,
  ownTask,
  proposedTask,
  readyFile,
  type Made,
  type Method,
  type Owner,
} from './fixtures';

/*
 * Ids a request names in its query or body, not its path: a file attached to a task or a chat, an
 * assistant, a contact to merge, a user, a team, an organization. Each id-like field of the registry
 * has a case here (or an exemption saying why it names nothing a caller could be refused): the
 * owner's own resource must work (the control), another user's and another account's must not, and
 * a refused write must leave what the owner reads unchanged (references.int.test.ts).
 */

export type Party = 'stranger' | 'outsider';
type Who = 'user' | 'account' | 'accountAsUser';
export type Sent = { method: Method; path: string; query?: Record<string, string>; body?: unknown; as?: Who };

export type Reference = {
  /** Makes the named resource for a party and returns its id (`ctx`: the owner's setup, when it is the owner's). */
  of: (s: TestServer, o: Owner, ctx?: Made) => Promise<string>;
  /** The request naming `id`; `ctx` holds the owner's other resources it needs (setup). */
  send: (id: string, ctx: Made, o: Owner) => Sent;
  setup?: (s: TestServer, o: Owner) => Promise<Made>;
  /** The owner's request uses its setup up (a merge, an ownership transfer): each request gets a fresh one. */
  spends?: true;
  /** Whose resources it must refuse: another user of the account, another account. */
  foreign: Party[];
  /** A stream (SSE): the first event is the answer. */
  stream?: true;
  /** What the owner reads back around a refused write (default: the GETs above the request's path). */
  reads?: (ctx: Made, o: Owner) => string[];
  /**
   * The endpoint does not refuse the request: it goes on without the foreign id (a file it cannot
   * read is left out). Then the foreign id must be nowhere in what the owner reads back after.
   */
  ignores?: string;
  /** A gap the case found in an area's service, reported: the case is expected to fail until it is fixed. */
  knownGap?: string;
};
export type Exempt = { exempt: string };

const id = (p: Promise<Made>, name: string) => p.then((m) => m[name]!);
const file = (s: TestServer, o: Owner) => id(readyFile(s, o), 'fileId');
const assistant = (s: TestServer, o: Owner) => id(ownAssistant(s, o), 'assistantId');
/** An assistant with a task and a chat of its owner: a filter naming it has something to show, or to leak. */
const busyAssistant = async (s: TestServer, o: Owner) => {
  const aid = await assistant(s, o);
  await call(s, '/tasks', { key: o.userKey, body: { title: `Theirs ${rand()}`, assistant: aid } });
  await call(s, '/chats', { key: o.userKey, body: { assistantId: aid } });
  return aid;
};
const contact = (s: TestServer, o: Owner) => id(ownedContact(s, o), 'contactId');
const task = (s: TestServer, o: Owner) => id(ownTask(s, o), 'taskId');
const userOf = async (_s: TestServer, o: Owner) => o.user.id;
const teamOf = async (_s: TestServer, o: Owner) => o.user.teamId;
const orgOf = (s: TestServer, o: Owner) => id(freshOrg(s, o), 'orgId');
const freshUser = async (s: TestServer, o: Owner) => (await newUser(s, o.account, { onboard: false })).id;
/** A message of the party's own chat (a triggeringActivityId): for the owner, of the chat the request goes to. */
const chatMessage = async (s: TestServer, o: Owner, ctx?: Made) => {
  const chatId = ctx?.chatId ?? (await ownChat(s, o)).chatId;
  return (await call(s, `/chats/${chatId}/messages`, { key: o.userKey, body: { content: 'An earlier message' } })).body.message.id as string;
};
const rand = () => Math.random().toString(36).slice(2, 8);

const NOT_A_REFERENCE = (what: string): Exempt => ({ exempt: `${what}: names no resource a caller could reach through it` });

/** Keyed `METHOD /path where.field` (arrays as `[]`), as references.int.test.ts finds them in the registry. */
export const references: Record<string, Reference | Exempt> = {
  'POST /tasks body.assistant': {
    of: assistant,
    foreign: ['stranger', 'outsider'],
    send: (aid) => ({ method: 'POST', path: '/tasks', body: { title: `Task ${rand()}`, assistant: aid } }),
  },
  'POST /tasks body.followers': NOT_A_REFERENCE('followers are email addresses'),
  'GET /tasks query.assistant': {
    of: busyAssistant,
    foreign: ['stranger', 'outsider'],
    send: (aid) => ({ method: 'GET', path: '/tasks', query: { assistant: aid } }),
  },
  'POST /tasks/{taskId}/process body.files': { exempt: 'the list whose fileId is checked below' },
  'POST /tasks/{taskId}/process body.files[].fileId': {
    of: file,
    setup: ownTask,
    foreign: ['stranger', 'outsider'],
    send: (fid, m) => ({ method: 'POST', path: `/tasks/${m.taskId}/process`, body: { message: 'See the attached file', files: [{ fileId: fid }] } }),
    reads: (m) => [`/tasks/${m.taskId}`, `/tasks/${m.taskId}/activities`, '/tasks'],
    ignores: 'the message reaches the task without the file the caller cannot read',
  },
  'POST /tasks/approve-batch body.taskIds': {
    of: (s, o) => id(proposedTask(s, o), 'taskId'),
    foreign: ['stranger', 'outsider'],
    send: (tid) => ({ method: 'POST', path: '/tasks/approve-batch', body: { taskIds: [tid] } }),
    reads: () => ['/tasks'],
    ignores: 'a batch answers per task: another user’s is listed under failed as not_found',
  },
  'GET /chats query.assistantId': {
    of: busyAssistant,
    foreign: ['stranger', 'outsider'],
    send: (aid) => ({ method: 'GET', path: '/chats', query: { assistantId: aid } }),
  },
  'POST /chats body.assistantId': {
    of: assistant,
    foreign: ['stranger', 'outsider'],
    send: (aid) => ({ method: 'POST', path: '/chats', body: { assistantId: aid } }),
  },
  'POST /chats/{chatId}/messages body.files': { exempt: 'the list whose fileId is checked below' },
  'POST /chats/{chatId}/messages body.files[].fileId': {
    of: file,
    setup: ownChat,
    foreign: ['stranger', 'outsider'],
    send: (fid, m) => ({ method: 'POST', path: `/chats/${m.chatId}/messages`, body: { content: 'The file', files: [{ fileId: fid }] } }),
    ignores: 'the message is saved without the file the caller cannot read',
  },
  'POST /chats/{chatId}/messages body.referenceId': NOT_A_REFERENCE('referenceId is the caller’s own correlation id'),
  'POST /chats/{chatId}/process body.message.files': { exempt: 'the list whose fileId is checked below' },
  'POST /chats/{chatId}/process body.message.files[].fileId': {
    of: file,
    setup: ownChat,
    stream: true,
    foreign: ['stranger', 'outsider'],
    send: (fid, m) => ({ method: 'POST', path: `/chats/${m.chatId}/process`, body: { message: { content: 'The file', files: [{ fileId: fid }] } } }),
    reads: (m) => [`/chats/${m.chatId}`, `/chats/${m.chatId}/messages`],
    ignores: 'the turn starts with the message, without the file the caller cannot read',
  },
  'POST /chats/{chatId}/process body.message.referenceId': NOT_A_REFERENCE('referenceId is the caller’s own correlation id'),
  'POST /chats/{chatId}/process body.triggeringActivityId': {
    of: chatMessage,
    setup: chatWithTurn,
    stream: true,
    foreign: ['stranger', 'outsider'],
    send: (mid, m) => ({ method: 'POST', path: `/chats/${m.chatId}/process`, body: { triggeringActivityId: mid } }),
    reads: (m) => [`/chats/${m.chatId}`, `/chats/${m.chatId}/messages`],
  },
  'GET /chats/{chatId}/runs/{executionId}/events query.lastEventId': NOT_A_REFERENCE('lastEventId is a position in the stream'),
  'POST /contacts/{contactId}/merge body.mergeContactId': {
    of: contact,
    setup: ownedContact,
    spends: true,
    foreign: ['stranger', 'outsider'],
    send: (cid, m) => ({ method: 'POST', path: `/contacts/${m.contactId}/merge`, body: { mergeContactId: cid } }),
    reads: (m) => [`/contacts/${m.contactId}`, '/contacts'],
  },
  'POST /contacts/{contactId}/relationships body.toContactId': {
    of: contact,
    setup: ownedContact,
    foreign: ['stranger', 'outsider'],
    send: (cid, m) => ({ method: 'POST', path: `/contacts/${m.contactId}/relationships`, body: { toContactId: cid, type: 'colleague' } }),
    reads: (m) => [`/contacts/${m.contactId}`],
  },
  'POST /contacts body.team': {
    of: teamOf,
    foreign: ['stranger', 'outsider'],
    send: (tid) => ({ method: 'POST', path: '/contacts', body: { email: `c${rand()}@example.org`, scope: 'team', team: tid } }),
  },
  'PUT /contacts/{contactId} body.team': {
    of: teamOf,
    setup: ownedContact,
    foreign: ['stranger', 'outsider'],
    send: (tid, m) => ({ method: 'PUT', path: `/contacts/${m.contactId}`, body: { scope: 'team', team: tid } }),
  },
  'POST /contacts body.company.id': NOT_A_REFERENCE('company.id is a label kept with the contact'),
  'PUT /contacts/{contactId} body.company.id': NOT_A_REFERENCE('company.id is a label kept with the contact'),
  'POST /contacts/bulk-import body.contacts[].company.id': NOT_A_REFERENCE('company.id is a label kept with the contact'),
  'POST /contacts body.source.userId': NOT_A_REFERENCE('source.userId records who introduced the contact, as given; it is never followed'),
  'POST /contacts body.externalIds': NOT_A_REFERENCE('externalIds are ids in the caller’s own systems'),
  'POST /contacts body.externalIds[].externalId': NOT_A_REFERENCE('externalIds are ids in the caller’s own systems'),
  'GET /contacts query.userId': {
    of: userOf,
    foreign: ['outsider'],
    send: (uid) => ({ method: 'GET', path: '/contacts', query: { userId: uid }, as: 'account' }),
  },
  'POST /memories body.team': {
    of: teamOf,
    foreign: ['stranger', 'outsider'],
    send: (tid) => ({ method: 'POST', path: '/memories', body: { content: `note ${rand()}`, scope: 'team', team: tid } }),
  },
  'PUT /memories/{memoryId} body.team': {
    of: teamOf,
    setup: async (s, o) => ({ memoryId: (await call(s, '/memories', { key: o.userKey, body: { content: 'mine' } })).body.memory.id }),
    foreign: ['stranger', 'outsider'],
    send: (tid, m) => ({ method: 'PUT', path: `/memories/${m.memoryId}`, body: { scope: 'team', team: tid } }),
  },
  'GET /memories query.companyId': NOT_A_REFERENCE('companyId filters by a tag of the caller’s own memories'),
  'POST /api-keys body.userId': {
    of: userOf,
    foreign: ['stranger', 'outsider'],
    send: (uid) => ({ method: 'POST', path: '/api-keys', body: { label: `k ${rand()}`, userId: uid } }),
  },
  'POST /identifiers body.userId': {
    of: userOf,
    foreign: ['outsider'],
    send: (uid) => ({ method: 'POST', path: '/identifiers', body: { type: 'custom', value: `handle-${rand()}`, userId: uid }, as: 'account' }),
    reads: (_m, o) => [`/identifiers?userId=${o.user.id}`],
  },
  'GET /identifiers query.userId': {
    of: userOf,
    foreign: ['outsider'],
    send: (uid) => ({ method: 'GET', path: '/identifiers', query: { userId: uid }, as: 'account' }),
  },
  'POST /identifiers/{identifierId}/link body.userId': {
    of: userOf,
    setup: async (s, o) => ({ identifierId: (await call(s, '/identifiers', { key: o.userKey, body: { type: 'custom', value: `handle-${rand()}` } })).body.identifier.id }),
    foreign: ['outsider'],
    send: (uid, m) => ({ method: 'POST', path: `/identifiers/${m.identifierId}/link`, body: { userId: uid }, as: 'account' }),
    reads: (_m, o) => [`/identifiers?userId=${o.user.id}`],
  },
  'POST /teams body.ownerId': {
    of: userOf,
    foreign: ['outsider'],
    send: (uid) => ({ method: 'POST', path: '/teams', body: { name: `Team ${rand()}`, ownerId: uid }, as: 'account' }),
  },
  'POST /teams body.newOwnerId': { exempt: 'names who takes over the creator’s current team, a member of it (join-rules.ts); ownerId above covers the account boundary' },
  'POST /teams/{teamId}/members body.userId': {
    of: freshUser,
    setup: async (s, o) => ({ teamId: (await leadTeam(s, o)).teamId }),
    spends: true,
    foreign: ['outsider'],
    send: (uid, m) => ({ method: 'POST', path: `/teams/${m.teamId}/members`, body: { userId: uid }, as: 'account' }),
  },
  'POST /teams/{teamId}/members body.newOwnerId': { exempt: 'names the member who takes over a team the joiner leaves: the user case above covers the account boundary' },
  'POST /teams/{teamId}/transfer-ownership body.newOwnerId': { exempt: 'only a member of the team can be named (400 otherwise); the path fixture covers who may transfer' },
  'POST /assistants body.user': {
    of: userOf,
    foreign: ['outsider'],
    send: (uid) => ({ method: 'POST', path: '/assistants', body: { name: `Shared ${rand()}`, email: `shared-${rand()}@assistants.example`, scope: 'user', user: uid }, as: 'account' }),
  },
  'POST /assistants body.team': {
    of: teamOf,
    foreign: ['outsider'],
    send: (tid) => ({ method: 'POST', path: '/assistants', body: { name: `Shared ${rand()}`, email: `shared-${rand()}@assistants.example`, scope: 'team', team: tid }, as: 'account' }),
  },
  'POST /assistants body.organization': {
    of: orgOf,
    foreign: ['outsider'],
    send: (oid) => ({ method: 'POST', path: '/assistants', body: { name: `Shared ${rand()}`, email: `shared-${rand()}@assistants.example`, scope: 'organization', organization: oid }, as: 'account' }),
  },
  'POST /assistants body.voice.voiceId': NOT_A_REFERENCE('voiceId names a voice of the speech provider'),
  'PUT /assistants/{assistantId} body.voice.voiceId': NOT_A_REFERENCE('voiceId names a voice of the speech provider'),
  'POST /users/{userId}/assistants body.voice.voiceId': NOT_A_REFERENCE('voiceId names a voice of the speech provider'),
  'PATCH /profile body.voice.voiceId': NOT_A_REFERENCE('voiceId names a voice of the speech provider'),
  'PUT /users/{userId} body.organization': {
    of: orgOf,
    setup: async (s, o) => ({ userId: await freshUser(s, o) }),
    foreign: ['outsider'],
    send: (oid, m) => ({ method: 'PUT', path: `/users/${m.userId}`, body: { organization: oid }, as: 'account' }),
  },
  'PUT /users/{userId} body.externalId': NOT_A_REFERENCE('externalId is the caller’s own id for the user'),
  'GET /users query.externalId': NOT_A_REFERENCE('externalId is the caller’s own id for the user'),
  'GET /users query.organizationId': {
    of: orgOf,
    foreign: ['outsider'],
    send: (oid) => ({ method: 'GET', path: '/users', query: { organizationId: oid }, as: 'account' }),
  },
  'POST /users/provision body.id': NOT_A_REFERENCE('id is the id the caller asks the new user to get'),
  'POST /users/provision body.teamId': {
    of: teamOf,
    foreign: ['outsider'],
    send: (tid) => ({ method: 'POST', path: '/users/provision', body: { email: `p${rand()}@example.org`, teamId: tid }, as: 'account' }),
  },
  'POST /users/deprovision body.teamId': {
    of: teamOf,
    setup: async (s, o) => ({ email: (await newUser(s, o.account, { teamId: o.user.teamId, onboard: false })).email }),
    spends: true,
    foreign: ['outsider'],
    send: (tid, m) => ({ method: 'POST', path: '/users/deprovision', body: { email: m.email, teamId: tid }, as: 'account' }),
    reads: () => ['/users'],
  },
  'GET /budgets query.scopeId': {
    of: async (s, o) => {
      const { orgId } = await freshOrg(s, o);
      await call(s, '/budgets', { key: o.account.key, body: { scope: 'organization', scopeId: orgId, limitCredits: 5 } });
      return orgId;
    },
    foreign: ['outsider'],
    send: (oid) => ({ method: 'GET', path: '/budgets', query: { scope: 'organization', scopeId: oid }, as: 'account' }),
  },
  'POST /budgets body.scopeId': {
    of: orgOf,
    foreign: ['outsider'],
    send: (oid) => ({ method: 'POST', path: '/budgets', body: { scope: 'organization', scopeId: oid, limitCredits: 5 }, as: 'account' }),
  },
  'POST /model-tier-segments body.organizationIds': {
    of: (s, o) => id(ownedOrg(s, o), 'orgId'),
    foreign: ['outsider'],
    send: (oid) => ({ method: 'POST', path: '/model-tier-segments', body: { name: `seg ${rand()}`, chat: 'high', organizationIds: [oid] }, as: 'account' }),
  },
  'POST /model-tier-segments body.teamIds': {
    of: teamOf,
    foreign: ['outsider'],
    send: (tid) => ({ method: 'POST', path: '/model-tier-segments', body: { name: `seg ${rand()}`, chat: 'high', teamIds: [tid] }, as: 'account' }),
  },
  'POST /model-tier-segments body.userIds': {
    of: userOf,
    foreign: ['outsider'],
    send: (uid) => ({ method: 'POST', path: '/model-tier-segments', body: { name: `seg ${rand()}`, chat: 'high', userIds: [uid] }, as: 'account' }),
  },
  'PATCH /model-tier-segments/{segmentId} body.organizationIds': { exempt: 'the same check as POST /model-tier-segments (segments.ts validates both through one function)' },
  'PATCH /model-tier-segments/{segmentId} body.teamIds': { exempt: 'the same check as POST /model-tier-segments (segments.ts validates both through one function)' },
  'PATCH /model-tier-segments/{segmentId} body.userIds': { exempt: 'the same check as POST /model-tier-segments (segments.ts validates both through one function)' },
  'GET /workspace/watch query.taskId': { exempt: 'needs a running browser for the owner’s control; tests/workspace refuses another user’s task there' },
  'POST /workspace/handoff/resolve body.items[].handoffId': { exempt: 'needs the browser control generation of a live session; tests/workspace/handoffs covers another user’s handoff' },
  'GET /oauth/slack/assistant/authorize query.assistantId': { exempt: 'needs a configured Slack app for the owner’s control; tests/channels covers another user’s assistant' },
  'GET /oauth/slack/assistant/link query.assistantId': { exempt: 'needs a configured Slack app for the owner’s control; tests/channels covers another user’s assistant' },
  'GET /oauth/teams/authorize query.targetId': { exempt: 'needs a configured Teams app for the owner’s control; tests/channels covers it' },
  'PATCH /teams/{teamId}/settings/resource-permissions body.approvalSettings.matrix.files': NOT_A_REFERENCE('`files` is an action category of the matrix'),
  'PATCH /users/{userId}/preferences/supervision/matrix body.matrix.files': NOT_A_REFERENCE('`files` is an action category of the matrix'),
  'GET /calendar/events query.calendarId': {
    of: (s, o) => id(ownCalendarConnection(s, o), 'calendarId'),
    foreign: ['stranger', 'outsider'],
    send: (cid) => ({ method: 'GET', path: '/calendar/events', query: { from: new Date().toISOString(), to: new Date(Date.now() + 7 * 86_400_000).toISOString(), calendarId: cid } }),
  },
  'POST /calendar/events body.event.id': NOT_A_REFERENCE('event.id is the calendar’s own id for the event'),
  'PUT /slack-apps/{appId}/credentials body.clientId': NOT_A_REFERENCE('clientId is the Slack app’s own OAuth client id'),
  'PUT /slack-apps/{appId}/credentials body.slackAppId': NOT_A_REFERENCE('slackAppId is Slack’s id for the app'),
  'GET /audit-events query.actorId': NOT_A_REFERENCE('a filter within the caller’s own log'),
  'GET /audit-events query.targetId': NOT_A_REFERENCE('a filter within the caller’s own log'),
};
