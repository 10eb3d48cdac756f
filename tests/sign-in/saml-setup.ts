import { eq } from 'drizzle-orm';
import { decode } from 'next-auth/jwt';
import { organizationDomains, organizations, users } from '@/db/schema';
import { setHostedDomain } from '@/server/hosted/accounts';
import { startSamlSignIn } from '@/server/sign-in/saml-start';
import { sessionSecret } from '@/server/sign-in/session';
import { call, newAccount, newUser } from '../helpers/client';
import { hosted } from '../helpers/hosted';
import { authnRequestId, IDP_CERT, IDP_ISSUER, samlResponse, type ResponseOptions } from '../helpers/saml-idp';
import type { TestServer } from '../helpers/server';

let n = 0;

/** An account on its own hosted domain with an organization that verified `corp<n>.test` and configured SAML against the test IdP. */
export async function samlOrganization(app: TestServer, sso: Record<string, unknown> = {}) {
  const db = app.database.db;
  const acct = await newAccount(app);
  const host = `app${++n}-${Date.now().toString(36)}.steward.test`;
  await setHostedDomain(db, acct.accountId, host);
  const domain = `corp${n}-${Date.now().toString(36)}.test`;
  const org = (await call(app, '/organizations', { key: acct.key, body: { name: 'Corp' } })).body.organization;
  const admin = await newUser(app, acct);
  await call(app, `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const added = await call(app, `/organizations/${org.id}/domains`, { key: acct.key, as: admin.email, body: { domain } });
  // Verification itself is covered with DNS on loopback in the domain tests; here the domain is simply verified.
  await db.update(organizationDomains).set({ verified: true, verifiedAt: new Date() }).where(eq(organizationDomains.id, added.body.domain.id));
  const put = await call(app, `/organizations/${org.id}/sso`, {
    key: acct.key,
    as: admin.email,
    method: 'PUT',
    body: { enabled: true, ...sso, saml: { entryPoint: 'https://idp.test.example/sso', certificate: IDP_CERT, issuer: IDP_ISSUER, ...((sso.saml as object) ?? {}) } },
  });
  if (put.status !== 200) throw new Error(`PUT sso: ${JSON.stringify(put.body)}`);
  const origin = `https://${host}`;
  const acsUrl = `${origin}/api/sso/saml/acs`;
  const audience = `${origin}/api/sso/saml/metadata`;
  const [orgRow] = await db.select().from(organizations).where(eq(organizations.id, org.id));

  return {
    acct,
    org,
    admin,
    host,
    domain,
    acsUrl,
    audience,
    /** Starts SP-initiated sign-in the way the sign-in page does and returns the AuthnRequest id. */
    start: async (returnTo = '/') => {
      const [fresh] = await db.select().from(organizations).where(eq(organizations.id, org.id));
      const { redirectUrl } = await startSamlSignIn(db, fresh ?? orgRow, origin, returnTo);
      return { redirectUrl, id: authnRequestId(redirectUrl) };
    },
    response: (o: Partial<ResponseOptions> & { email: string }) => samlResponse({ acsUrl, audience, ...o }),
    post: (SAMLResponse: string, RelayState?: string) =>
      hosted(`${app.baseUrl}/sso/saml/acs`, { host, form: { SAMLResponse, ...(RelayState ? { RelayState } : {}) } }),
    userByEmail: async (email: string) => (await db.select().from(users).where(eq(users.email, email)))[0] ?? null,
  };
}

/** The user a Set-Cookie session belongs to, decoded exactly as next-auth decodes it. */
export async function sessionUser(app: TestServer, setCookie: string[] | undefined) {
  const cookie = (setCookie ?? []).find((c) => c.includes('next-auth.session-token='));
  if (!cookie) return null;
  const token = cookie.split(';')[0].split('=').slice(1).join('=');
  const decoded = await decode({ token, secret: await sessionSecret(app.database.db) });
  return { cookie, sub: decoded?.sub ?? null, method: (decoded as { method?: string } | null)?.method ?? null };
}
