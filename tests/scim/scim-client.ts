import { call, newAccount, newUser } from '../helpers/client';
import type { TestServer } from '../helpers/server';

/** What an identity provider sends with every SCIM request. */
export const SCIM_HEADERS = { 'Content-Type': 'application/scim+json', Accept: 'application/scim+json' };
export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const USER_URN = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_URN = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export const tag = () => Math.random().toString(36).slice(2, 8);

/**
 * An organization with a SCIM token and a verified domain of its own (unique per call, so each
 * test's people are its own), as an organization admin sets it up before connecting an IdP.
 */
export async function scimOrganization(app: () => TestServer) {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: `IdP Co ${tag()}` } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const minted = await call(app(), `/organizations/${org.id}/scim/token`, { key: acct.key, as: admin.email, method: 'POST' });
  const domain = `idp-${tag()}.example`;
  const added = await call(app(), `/organizations/${org.id}/domains`, { key: acct.key, body: { domain } });
  // DNS verification has its own tests; SCIM only needs the domain verified.
  await app().database.pool.query(`UPDATE organization_domains SET verified = true, verified_at = now() WHERE id = $1`, [added.body.domain.id]);
  const token = minted.body.token as string;
  /** A request as the IdP sends it: the bearer token, SCIM's media type, the body as raw JSON. */
  const scim = (path: string, opts: { method?: string; body?: unknown; token?: string | null } = {}) =>
    call(app(), `/scim/v2${path}`, {
      key: opts.token === undefined ? token : opts.token,
      method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      rawBody: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      headers: SCIM_HEADERS,
    });
  return { acct, org, admin, token, endpoint: minted.body.endpoint as string, domain, scim };
}

export const filterQuery = (filter: string) => `filter=${encodeURIComponent(filter)}`;
/** The path below /api/scim/v2 of an absolute meta.location or Location header. */
export const scimPath = (location: string) => new URL(location).pathname.replace(/^\/api\/scim\/v2/, '');
