import type { TestServer } from '../helpers/server';
import { call } from '../helpers/client';
import type { Credential, Made, Owner } from './fixtures';

/* What every fixture module of the security suite makes its resources with. */

export const rand = () => Math.random().toString(36).slice(2, 10);

/** Fails loudly: a fixture that could not make its resource would turn every refusal into a meaningless 404. */
export async function made<T = any>(what: string, res: Promise<{ status: number; body: T }>, ok = [200, 201]): Promise<T> {
  const r = await res;
  if (!ok.includes(r.status)) throw new Error(`fixture: ${what} answered ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export const madeKey = (m: Made): Credential => ({ key: m.key });

/**
 * An organization whose admin is the owner; other users of the account are not members.
 * One per owner: organization creation is limited to 10 a minute, and nothing in the suite
 * deletes it (DELETE /organizations/{orgId} gets organizations of its own).
 */
const orgs = new Map<string, string>();
export const ownedOrg = async (s: TestServer, o: Owner) => {
  let orgId = orgs.get(o.user.id);
  if (!orgId) {
    orgId = (await made('organization', call(s, '/organizations', { key: o.account.key, body: { name: 'Fixture org' } }))).organization.id as string;
    orgs.set(o.user.id, orgId);
    await made('organization admin', call(s, `/users/${o.user.id}`, { key: o.account.key, method: 'PUT', body: { organization: orgId, organizationRole: 'admin' } }));
  }
  return { orgId };
};
