import type { AnyEndpoint } from '@/server/http/endpoint';
import { setHostedDomain } from '@/server/hosted/accounts';
import { createServiceKey } from '@/server/prompts/service-keys';
import { recordTrace } from '@/server/prompts/traces';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import type { TestServer } from '../helpers/server';
import { samplePrompt } from '../prompts/helpers';
import { fixtures, type Owner } from '../security/fixtures';

// ---------------------------------------------------------------------------------------
// A real world per endpoint: its own account, an onboarded owner, their key, and a real
// resource for every path parameter, so requests reach the handlers and not only 401/404.

/** `odd` credentials (act-as emails no one holds) are drawn rarely: they only reach the 401 path. */
type Credential = { label: string; headers: Record<string, string>; odd?: boolean };

export type World = {
  params: Record<string, string>;
  credentials: Credential[];
  /** Real ids of this world, offered to id-like fields so validation passes and services run. */
  ids: string[];
  email: string;
  /** A verified domain of the world's organization (SCIM worlds), for addresses SCIM accepts. */
  domain?: string;
};

const SCIM_HEADERS = { 'Content-Type': 'application/scim+json' };

export async function worldFor(s: TestServer, ep: AnyEndpoint): Promise<World> {
  // Hostile act-as emails fail authentication on purpose; the per-IP lockout for failed
  // authentications would otherwise answer every later request with 429.
  Object.assign(s.kernel.rateLimits.defaults, { failedAuth: 1_000_000 });
  const account = await newAccount(s, 'Fuzz');
  const user = await newUser(s, account);
  const owner: Owner = { account, user, userKey: await userKey(s, account, user.id) };
  const params: Record<string, string> = {};
  // A primary assistant, without which phone-line requests and Slack links stop at 400.
  const assistant = await call(s, `/users/${user.id}/assistants`, { key: owner.userKey, body: { name: 'Fuzz helper' } });
  const fixture = fixtures[ep.path];
  if (fixture) Object.assign(params, await fixture.create(s, owner));

  const bearer = (key: string, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${key}`, ...extra });
  let credentials: Credential[] = [];
  let domain: string | undefined;
  if (ep.auth === 'any') {
    credentials = [
      { label: 'account key', headers: bearer(account.key) },
      { label: 'user key', headers: bearer(owner.userKey) },
      { label: 'account key as user', headers: bearer(account.key, { 'X-User-Email': user.email }) },
    ];
  } else if (ep.auth === 'user') {
    credentials = [
      { label: 'user key', headers: bearer(owner.userKey) },
      { label: 'account key as user', headers: bearer(account.key, { 'X-User-Email': user.email }) },
    ];
  } else if (ep.auth === 'account') {
    credentials = [{ label: 'account key', headers: bearer(account.key) }];
  } else if (ep.auth === 'none') {
    // The SAML endpoints answer for the account the Host names; without one they stop at 404.
    const host = `h-${Math.random().toString(36).slice(2, 10)}.example`;
    await setHostedDomain(s.database.db, account.accountId, host);
    credentials = [
      { label: 'no credential, hosted domain', headers: { Host: host } },
      { label: 'no credential', headers: {} },
    ];
  } else if (ep.auth === 'service') {
    const { serviceKey } = await createServiceKey(s.database.db, account.accountId);
    credentials = [{ label: 'service key', headers: bearer(serviceKey) }];
    Object.assign(params, await tenantResources(s, ep, account.accountId, serviceKey));
  } else if (ep.auth === 'scim') {
    const { token, id, domain: scimDomain } = await scimResources(s, ep, owner);
    credentials = [{ label: 'scim token', headers: bearer(token, SCIM_HEADERS) }];
    if (id) params.id = id;
    domain = scimDomain;
  }
  // Act-as with an email that cannot name anyone, or that Latin-1 headers mangle.
  if (credentials.some((c) => c.headers['X-User-Email'])) {
    credentials.push({ label: 'account key as odd email', headers: bearer(account.key, { 'X-User-Email': 'ÿ@exämple.com' }), odd: true });
    credentials.push({ label: 'account key as long email', headers: bearer(account.key, { 'X-User-Email': `${'a'.repeat(5000)}@example.com` }), odd: true });
  }
  const ids = [user.id, user.teamId, account.accountId, assistant.body.assistant?.id, ...Object.values(params)].filter(Boolean) as string[];
  return { params, credentials, ids, email: user.email, domain };
}

async function tenantResources(s: TestServer, ep: AnyEndpoint, tenantId: string, key: string) {
  const t = (path: string, body?: unknown, method?: string) => call(s, `/tenants/${tenantId}${path}`, { key, body, method });
  const out: Record<string, string> = { tenantId };
  if (ep.path.includes('{promptName}')) {
    await t('/prompts', samplePrompt('fuzz_prompt'));
    out.promptName = 'fuzz_prompt';
  }
  if (ep.path.includes('{versionNumber}')) {
    await t('/prompts/fuzz_prompt/publish', {});
    out.versionNumber = '1';
  }
  if (ep.path.includes('{blockName}')) {
    await t('/blocks', { blockName: 'fuzz_block', content: 'Be kind.', description: 'Tone' });
    out.blockName = 'fuzz_block';
  }
  if (ep.path.includes('{traceId}')) {
    out.traceId = (await recordTrace(s.database.db, tenantId, { promptName: 'fuzz_prompt', modelConfig: { model: 'm', provider: 'p' } })).traceId;
  }
  return out;
}

async function scimResources(s: TestServer, ep: AnyEndpoint, owner: Owner) {
  const key = owner.account.key;
  const org = (await call(s, '/organizations', { key, body: { name: 'Fuzz SCIM' } })).body.organization;
  await call(s, `/users/${owner.user.id}`, { key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const token = (await call(s, `/organizations/${org.id}/scim/token`, { key, as: owner.user.email, method: 'POST' })).body.token as string;
  // SCIM creates people only at verified domains; DNS verification has its own tests.
  const domain = `scim-${Math.random().toString(36).slice(2, 10)}.example`;
  const added = await call(s, `/organizations/${org.id}/domains`, { key, body: { domain } });
  await s.database.pool.query('UPDATE organization_domains SET verified = true, verified_at = now() WHERE id = $1', [added.body.domain.id]);
  let id: string | undefined;
  const scim = (path: string, body: unknown) => call(s, `/scim/v2${path}`, { key: token, rawBody: JSON.stringify(body), headers: SCIM_HEADERS, method: 'POST' });
  if (ep.path.startsWith('/scim/v2/Users/')) id = (await scim('/Users', { userName: `scim-person@${domain}`, name: { givenName: 'S' } })).body.id;
  if (ep.path.startsWith('/scim/v2/Groups/')) id = (await scim('/Groups', { displayName: `Group ${Date.now()}` })).body.id;
  return { token, id, domain };
}

// ---------------------------------------------------------------------------------------
// Values derived from an endpoint's schema (through its JSON Schema), mostly valid.
