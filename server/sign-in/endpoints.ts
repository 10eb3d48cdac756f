import { z } from 'zod';
import { hostedSite } from '@/server/hosted/accounts';
import { defineEndpoint } from '@/server/http/endpoint';
import { consumeSamlResponse } from './saml-acs';
import { singleLogout } from './saml-logout';
import { portalToken } from './portal-actor';
import { clearSessionCookie, sessionSetCookie } from './session';
import { requestOf } from '@/server/audit/request-meta';
import { recordSamlRefusal, recordSignIn, recordSignOut } from './sign-in-audit';

const redirect = (location: string, cookie: string) =>
  new Response(null, { status: 303, headers: { Location: location, 'Set-Cookie': cookie, 'Cache-Control': 'no-store' } });

async function formOf(req: { text(): Promise<string> }) {
  return new URLSearchParams(await req.text());
}

const slo = (method: 'GET' | 'POST') =>
  defineEndpoint({
    method,
    path: '/sso/saml/slo',
    summary: 'SAML single logout: ends the hosted-app session (IdP LogoutRequest or LogoutResponse, or a local sign-out)',
    tags: ['SSO'],
    auth: 'none',
    raw: true,
    response: z.unknown(),
    errors: [404],
    handle: async ({ db, req }) => {
      const { account, origin, secure } = await hostedSite(db, req.headers);
      const url = new URL(req.url);
      const session = await portalToken(db, account, req.headers, secure);
      const message = { method, query: url.searchParams, form: method === 'POST' ? await formOf(req) : null, headers: req.headers };
      const { location, endSession } = await singleLogout(db, account, origin, message, session);
      if (endSession && session) await recordSignOut(db, session, requestOf(req));
      if (endSession) return redirect(location, clearSessionCookie(secure));
      return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
    },
  });

/**
 * ACS: form-encoded SAMLResponse (and RelayState). Success is a 303 into the hosted app with the
 * session cookie; every refusal a 403 sso_rejected naming the reason (see saml-acs.ts).
 */
export const signInEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/sso/saml/acs',
    summary: 'SAML assertion consumer service: verifies the IdP response and starts a hosted-app session',
    tags: ['SSO'],
    auth: 'none',
    raw: true,
    response: z.unknown(),
    errors: [400, 403, 404],
    handle: async ({ db, req }) => {
      const { account, origin, secure } = await hostedSite(db, req.headers);
      const { user, returnTo, saml } = await consumeSamlResponse(db, account, origin, await formOf(req)).catch((e: unknown) => recordSamlRefusal(db, account.id, e, requestOf(req)));
      await recordSignIn(db, user, 'saml', requestOf(req));
      return redirect(returnTo, await sessionSetCookie(db, user, 'saml', secure, saml));
    },
  }),
  slo('GET'),
  slo('POST'),
];
