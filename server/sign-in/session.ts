import { randomBytes } from 'node:crypto';
import { encode } from 'next-auth/jwt';
import type { Db } from '@/db/client';
import type { UserRow } from '@/db/schema';
import { ensureAppSecret } from '@/server/secrets/app-secret';

/** Hosted-app sessions last a working week; signing in again renews them. */
export const SESSION_MAX_AGE_S = 7 * 24 * 3600;

/** NEXTAUTH_SECRET when set, else one generated once and kept in Postgres so every instance agrees. */
export async function sessionSecret(db: Db): Promise<string> {
  if (process.env.NEXTAUTH_SECRET) return process.env.NEXTAUTH_SECRET;
  return ensureAppSecret(db, 'portal-session-secret', () => randomBytes(32).toString('base64url'));
}

/** next-auth's cookie names: the __Secure- prefix (and Secure flag) whenever the hosted app is on https. */
export const sessionCookieName = (secure: boolean) => `${secure ? '__Secure-' : ''}next-auth.session-token`;

/** What single logout needs to name the IdP session (SAML sign-ins only). */
export type SamlSession = { organizationId: string; nameID: string; nameIDFormat: string | null; sessionIndex: string | null };

/** `sv`: the user's session version when the session was minted (see sessionStillValid). */
export type PortalToken = { sub: string; email: string; name: string | null; accountId: string; method: 'email' | 'saml'; sv: number; saml?: SamlSession };

export const tokenFor = (user: UserRow, method: PortalToken['method'], saml?: SamlSession): PortalToken => ({
  sub: user.id,
  email: user.email,
  name: user.name,
  accountId: user.accountId,
  method,
  sv: user.sessionVersion,
  ...(saml ? { saml } : {}),
});

/**
 * A session lasts while its user's session version is the one it was minted at: blocking, losing
 * a role or SSO enforcement bump the version (database triggers), which ends every session of the
 * user at once. Tokens minted before versions existed carry none and end too.
 */
export const sessionVersionCurrent = (token: Partial<PortalToken>, user: Pick<UserRow, 'sessionVersion'>) =>
  typeof token.sv === 'number' && token.sv === user.sessionVersion;

/** A session cookie next-auth itself accepts (same encoding, secret, name and flags). */
export async function sessionSetCookie(db: Db, user: UserRow, method: PortalToken['method'], secure: boolean, saml?: SamlSession): Promise<string> {
  const token = await encode({ token: tokenFor(user, method, saml), secret: await sessionSecret(db), maxAge: SESSION_MAX_AGE_S });
  return [`${sessionCookieName(secure)}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${SESSION_MAX_AGE_S}`, ...(secure ? ['Secure'] : [])].join('; ');
}

export const clearSessionCookie = (secure: boolean) =>
  [`${sessionCookieName(secure)}=`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=0', ...(secure ? ['Secure'] : [])].join('; ');
