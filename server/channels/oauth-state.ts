import { createHash, createHmac, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt, or } from 'drizzle-orm';
import { SignJWT, jwtVerify } from 'jose';
import type { Db } from '@/db/client';
import { oauthFlows } from '@/db/schema';
import type { mailboxProviders, oauthChatApps } from '@/db/schema/channel-names';
import { badRequest, forbidden } from '@/server/http/errors';
import { ensureAppSecret } from '@/server/secrets/app-secret';

/** The user's own mailbox (Gmail, Microsoft 365), connected through the same bound, single-use flows. */
export type MailboxOAuthProvider = (typeof mailboxProviders)[number];

export type OAuthState = { provider: (typeof oauthChatApps)[number] | 'github' | MailboxOAuthProvider; purpose: string; accountId: string; userId: string | null; assistantId?: string; target?: Record<string, string> };

const TTL_MS = 10 * 60_000;
const AUDIENCE = 'steward-oauth';

/** A key of its own: a state is not an upload URL, and neither should verify as the other. */
const key = async (db: Db) => new TextEncoder().encode(await ensureAppSecret(db, 'oauth-state-key', () => randomBytes(32).toString('base64url')));

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

/**
 * The flow's provider as oauth_flows records it. The column is text; its TypeScript list
 * (db/schema/channels.ts) does not name the mailbox providers yet, so they are recorded as given.
 */
const flowProvider = (p: OAuthState['provider']) => p as (typeof oauthFlows.$inferInsert)['provider'];

/**
 * The PKCE code verifier of a flow (RFC 7636): an HMAC of its signed state under the state key,
 * so nothing is stored and nobody without the key (the provider, a reader of the URLs) can know
 * it. 43 characters of base64url, as the RFC asks.
 */
export async function pkceVerifier(db: Db, stateToken: string): Promise<string> {
  return createHmac('sha256', await key(db)).update(`pkce:${stateToken}`).digest('base64url');
}

/** The S256 challenge sent with the authorization request. */
export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** One cookie per flow, so two connections started side by side do not overwrite each other. */
export const bindingCookieName = (flowId: string) => `steward_oauth_${flowId}`;

export function readCookie(header: string | null, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
}

/** A signed state naming what is being connected, expiring in 10 minutes, with its flow recorded. */
export async function issueState(db: Db, state: OAuthState): Promise<string> {
  const id = randomBytes(16).toString('base64url');
  const expiresAt = new Date(Math.floor((Date.now() + TTL_MS) / 1000) * 1000);
  await db.delete(oauthFlows).where(lt(oauthFlows.expiresAt, new Date()));
  await db.insert(oauthFlows).values({ id, accountId: state.accountId, provider: flowProvider(state.provider), expiresAt });
  return new SignJWT({ ...state })
    .setProtectedHeader({ alg: 'HS256' })
    .setJti(id)
    .setIssuedAt()
    .setExpirationTime(expiresAt.getTime() / 1000)
    .setAudience(AUDIENCE)
    .sign(await key(db));
}

async function verify(db: Db, token: string): Promise<OAuthState & { jti: string }> {
  try {
    const { payload } = await jwtVerify(token, await key(db), { audience: AUDIENCE, algorithms: ['HS256'] });
    if (typeof payload.jti !== 'string') throw new Error('no jti');
    return payload as unknown as OAuthState & { jti: string };
  } catch {
    throw badRequest('state: invalid or expired; start the connection again');
  }
}

/**
 * The browser opening the begin link becomes the only one that can finish the flow: it gets a
 * random cookie whose hash the flow keeps. Opening the link again from that browser is fine;
 * from another one, it is refused.
 */
export async function bindState(db: Db, token: string, cookieHeader: string | null): Promise<{ state: OAuthState; cookie: { name: string; value: string } }> {
  const state = await verify(db, token);
  const name = bindingCookieName(state.jti);
  const value = readCookie(cookieHeader, name) ?? randomBytes(32).toString('base64url');
  const hash = sha256(value);
  const now = new Date();
  const bound = await db
    .update(oauthFlows)
    .set({ bindingHash: hash, begunAt: now })
    .where(and(eq(oauthFlows.id, state.jti), gt(oauthFlows.expiresAt, now), isNull(oauthFlows.consumedAt), or(isNull(oauthFlows.begunAt), eq(oauthFlows.bindingHash, hash))))
    .returning({ id: oauthFlows.id });
  if (bound.length === 0) throw badRequest('state: this connection link was already opened elsewhere, used or has expired; start the connection again', {}, 'oauth_state_used');
  return { state, cookie: { name, value } };
}

/** At the callback: the state is accepted once, for its provider, in the browser it was bound to. */
export async function consumeState(db: Db, token: string, provider: OAuthState['provider'], cookieHeader: string | null): Promise<OAuthState & { jti: string }> {
  const state = await verify(db, token);
  if (state.provider !== provider) throw forbidden('state: issued for another provider');
  const presented = readCookie(cookieHeader, bindingCookieName(state.jti));
  const unbound = () => forbidden('state: the connection was started in another browser; start it again in this one', 'oauth_state_unbound');
  if (!presented) throw unbound();
  const now = new Date();
  const consumed = await db
    .update(oauthFlows)
    .set({ consumedAt: now })
    .where(and(eq(oauthFlows.id, state.jti), eq(oauthFlows.bindingHash, sha256(presented)), isNull(oauthFlows.consumedAt), gt(oauthFlows.expiresAt, now)))
    .returning({ id: oauthFlows.id });
  if (consumed.length > 0) return state;
  const [flow] = await db.select().from(oauthFlows).where(eq(oauthFlows.id, state.jti));
  if (flow?.consumedAt) throw badRequest('state: already used; start the connection again', {}, 'oauth_state_used');
  if (flow && flow.bindingHash !== sha256(presented)) throw unbound();
  throw badRequest('state: invalid or expired; start the connection again');
}
