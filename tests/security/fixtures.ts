import type { TestServer } from '../helpers/server';
import type { AccountFixture } from '../helpers/client';
import { call } from '../helpers/client';

export type Owner = { account: AccountFixture; user: { id: string; email: string; teamId: string }; userKey: string };

/**
 * How the security suite finds a real resource for an endpoint with path parameters.
 * `create` makes one owned by `owner` and returns the path parameters that name it.
 * `ownership: 'user'`: another user of the same account must get 404.
 * `ownership: 'account'`: shared inside the account; only another account must get 404.
 */
export type Fixture = {
  ownership: 'user' | 'account';
  create: (server: TestServer, owner: Owner) => Promise<Record<string, string>>;
  /** A valid body per method, so the refusal is about the resource and not the input. */
  body?: Partial<Record<'POST' | 'PUT' | 'PATCH' | 'DELETE', unknown>>;
};

/** Keyed by path template; every method at that path uses it. Each area adds its own entries. */
const ownedContact = async (s: TestServer, o: Owner) => {
  const r = await call(s, '/contacts', { key: o.userKey, body: { email: `c${Math.random().toString(36).slice(2)}@example.org` } });
  return { contactId: r.body.contact.id };
};

const ownedFile = async (s: TestServer, o: Owner) => {
  const r = await call(s, '/drive-files/upload', { key: o.userKey, body: { name: 'notes.txt', size: 5 } });
  return { fileId: r.body.fileId };
};

/**
 * An organization whose admin is the owner; other users of the account are not members.
 * One per owner: organization creation is limited to 10 a minute.
 */
const orgs = new Map<string, string>();
const ownedOrg = async (s: TestServer, o: Owner) => {
  let orgId = orgs.get(o.user.id);
  if (!orgId) {
    const r = await call(s, '/organizations', { key: o.account.key, body: { name: 'Fixture org' } });
    orgId = r.body.organization.id as string;
    orgs.set(o.user.id, orgId);
    await call(s, `/users/${o.user.id}`, { key: o.account.key, method: 'PUT', body: { organization: orgId, organizationRole: 'admin' } });
  }
  return { orgId, userId: o.user.id };
};

const ownTeam = async (_s: TestServer, o: Owner) => ({ teamId: o.user.teamId });
const ownMembership = async (s: TestServer, o: Owner) => {
  const r = await call(s, `/teams/${o.user.teamId}/members`, { key: o.userKey });
  return { teamId: o.user.teamId, memberId: r.body.members[0].id };
};

const ownIdentifier = async (s: TestServer, o: Owner) => {
  const r = await call(s, '/identifiers', { key: o.userKey, body: { type: 'custom', value: `handle-${Math.random().toString(36).slice(2)}` } });
  return { identifierId: r.body.identifier.id };
};

const orgDomain = async (s: TestServer, o: Owner) => {
  const { orgId } = await ownedOrg(s, o);
  const r = await call(s, `/organizations/${orgId}/domains`, { key: o.account.key, body: { domain: `d${Math.random().toString(36).slice(2)}.example` } });
  return { orgId, domainId: r.body.domain.id };
};

const ownAssistant = async (s: TestServer, o: Owner) => {
  const r = await call(s, `/users/${o.user.id}/assistants`, { key: o.userKey, body: { name: `Helper ${Math.random().toString(36).slice(2, 8)}` } });
  return { assistantId: r.body.assistant.id, userId: o.user.id };
};

export const fixtures: Record<string, Fixture> = {
  '/assistants/{assistantId}': { ownership: 'user', create: ownAssistant, body: { PUT: { tagline: 'x' } } },
  '/assistants/{assistantId}/slack-apps': { ownership: 'user', create: ownAssistant, body: { POST: { kind: 'workspace', botDisplayName: 'Bot' } } },
  '/users/{userId}/assistants': { ownership: 'user', create: async (_s, o) => ({ userId: o.user.id }), body: { POST: { name: 'Intruder' } } },
  '/users/{userId}/assistants/{assistantId}': { ownership: 'user', create: ownAssistant },
  '/users/{userId}/assistants/{assistantId}/hire': { ownership: 'user', create: ownAssistant },
  '/users/{userId}/assistants/{assistantId}/primary': { ownership: 'user', create: ownAssistant },
  '/identifiers/{identifierId}': { ownership: 'user', create: ownIdentifier },
  '/identifiers/{identifierId}/make-primary': { ownership: 'user', create: ownIdentifier },
  '/identifiers/{identifierId}/link': { ownership: 'user', create: ownIdentifier, body: { POST: { userId: 'ffffffffffffffffffffffff' } } },
  '/teams/{teamId}': { ownership: 'user', create: ownTeam, body: { PUT: { name: 'x' } } },
  '/teams/{teamId}/settings/resource-permissions': { ownership: 'user', create: ownTeam, body: { PATCH: { capabilities: { workspaceCli: 'off' } } } },
  '/teams/{teamId}/settings/security-preset': { ownership: 'user', create: ownTeam, body: { POST: { preset: 'restricted' } } },
  '/teams/{teamId}/members': { ownership: 'user', create: ownTeam, body: { POST: { userId: 'ffffffffffffffffffffffff' } } },
  '/teams/{teamId}/members/{memberId}': { ownership: 'user', create: ownMembership, body: { PUT: { role: 'admin' } } },
  '/teams/{teamId}/transfer-ownership': { ownership: 'user', create: ownTeam, body: { POST: { newOwnerId: 'ffffffffffffffffffffffff' } } },
  '/organizations/{orgId}': { ownership: 'account', create: ownedOrg, body: { PUT: { name: 'x' } } },
  '/organizations/{orgId}/scim/token': { ownership: 'account', create: ownedOrg },
  '/organizations/{orgId}/sso': { ownership: 'account', create: ownedOrg, body: { PUT: { enforced: false } } },
  '/organizations/{orgId}/domains': { ownership: 'account', create: ownedOrg, body: { POST: { domain: 'fixture.example' } } },
  '/organizations/{orgId}/domains/{domainId}': { ownership: 'account', create: orgDomain, body: { PUT: { autoJoin: true } } },
  '/organizations/{orgId}/domains/{domainId}/verify': { ownership: 'account', create: orgDomain },
  '/organizations/{orgId}/members': { ownership: 'account', create: ownedOrg, body: { POST: { email: 'someone@example.org' } } },
  '/organizations/{orgId}/members/{userId}': { ownership: 'account', create: ownedOrg },
  '/organizations/{orgId}/settings/model-tiers': { ownership: 'account', create: ownedOrg, body: { PATCH: { chat: 'high' } } },
  '/drive-files/{fileId}': { ownership: 'user', create: ownedFile },
  '/drive-files/{fileId}/download': { ownership: 'user', create: ownedFile },
  '/drive-files/{fileId}/confirm': { ownership: 'user', create: ownedFile, body: { POST: { size: 5 } } },
  '/contacts/{contactId}': { ownership: 'user', create: ownedContact, body: { PUT: { name: 'Changed' } } },
  '/contacts/{contactId}/merge': {
    ownership: 'user',
    create: ownedContact,
    body: { POST: { mergeContactId: 'ffffffffffffffffffffffff' } },
  },
  '/memories/{memoryId}': {
    ownership: 'user',
    create: async (s, o) => {
      const r = await call(s, '/memories', { key: o.userKey, body: { content: 'secret note' } });
      return { memoryId: r.body.memory.id };
    },
    body: { PUT: { content: 'overwritten' } },
  },
  '/users/{userId}': { ownership: 'user', create: async (_s, o) => ({ userId: o.user.id }) },
  '/users/{userId}/preferences/scheduling': {
    ownership: 'user',
    create: async (_s, o) => ({ userId: o.user.id }),
    body: { PUT: { schedulingPreferences: { availability: { workingHours: { TU: [{ start: '10:00', end: '12:00' }] } } } } },
  },
  '/api-keys/{keyId}': {
    ownership: 'user',
    create: async (s, o) => {
      const r = await call(s, '/api-keys', { key: o.userKey, body: { label: 'target' } });
      return { keyId: r.body.apiKey.id };
    },
  },
  '/api-keys/{keyId}/revoke': {
    ownership: 'user',
    create: async (s, o) => {
      const r = await call(s, '/api-keys', { key: o.userKey, body: { label: 'target' } });
      return { keyId: r.body.apiKey.id };
    },
  },
};
