import { decodeProtectedHeader, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { z } from 'zod';
import { jsonOf, providerRequest } from '../slack/provider-http';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';
import { BOT_FRAMEWORK_ISSUER, type TeamsBotConfig } from './config';

/*
 * Authenticating the Bot Connector (Bot Framework: "Connector to bot" authentication). Every
 * request carries `Authorization: Bearer <JWT>`, and it is accepted only when:
 * - it is signed (RS256) by a key listed in the keys document named by the OpenID metadata at
 *   STEWARD_TEAMS_OPENID_URL (`jwks_uri`), and that key endorses the activity's channel when it
 *   lists endorsements;
 * - its issuer is https://api.botframework.com and its audience the bot's app id (TEAMS_CLIENT_ID);
 * - it is within its validity (five minutes of clock skew, as the Bot Framework allows);
 * - its `serviceUrl` claim is the activity's serviceUrl, so a valid token cannot send the bot's
 *   replies (and its Connector token) to an address of the sender's choosing.
 * Keys are cached for a day and fetched again, at most once a minute, for an unknown key id.
 */

const OpenIdMetadata = z.object({ jwks_uri: z.string().url(), issuer: z.string().optional() }).loose();
const Keys = z.object({ keys: z.array(z.object({ kid: z.string(), kty: z.string(), endorsements: z.array(z.string()).optional() }).loose()) });

type Key = { key: CryptoKey | Uint8Array; endorsements: string[] | null };
type KeySet = { at: number; byKid: Map<string, Key> };

const KEYS_TTL_MS = 24 * 3_600_000;
const REFETCH_MS = 60_000;
const SKEW_S = 300;
let cached: { url: string; set: KeySet } | null = null;
let inflight: Promise<KeySet> | null = null;

async function fetchKeys(openIdUrl: string): Promise<KeySet> {
  const meta = OpenIdMetadata.parse(jsonOf(await providerRequest('Bot Framework', openIdUrl, { method: 'GET', headers: { Accept: 'application/json' }, timeoutMs: TOTAL_MS.token })));
  const doc = Keys.parse(jsonOf(await providerRequest('Bot Framework', meta.jwks_uri, { method: 'GET', headers: { Accept: 'application/json' }, timeoutMs: TOTAL_MS.token })));
  const byKid = new Map<string, Key>();
  for (const jwk of doc.keys) {
    if (jwk.kty !== 'RSA') continue;
    try {
      const { endorsements, ...rest } = jwk;
      byKid.set(jwk.kid, { key: await importJWK(rest as JWK, 'RS256'), endorsements: endorsements ?? null });
    } catch {
      // A key that does not import verifies nothing.
    }
  }
  return { at: Date.now(), byKid };
}

async function keyFor(cfg: TeamsBotConfig, kid: string): Promise<Key | null> {
  const fresh = cached?.url === cfg.openIdUrl && Date.now() - cached.set.at < KEYS_TTL_MS ? cached.set : null;
  const known = fresh?.byKid.get(kid);
  if (known) return known;
  if (fresh && Date.now() - fresh.at < REFETCH_MS) return null;
  inflight ??= fetchKeys(cfg.openIdUrl).finally(() => (inflight = null));
  const set = await inflight;
  cached = { url: cfg.openIdUrl, set };
  return set.byKid.get(kid) ?? null;
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();

export type ConnectorCheck = { ok: true; claims: JWTPayload } | { ok: false; reason: string };

export async function verifyConnectorToken(cfg: TeamsBotConfig, authorization: string | null, activity: { serviceUrl: string; channelId: string }): Promise<ConnectorCheck> {
  const token = /^Bearer ([\w-]+\.[\w-]+\.[\w-]+)$/.exec(authorization ?? '')?.[1];
  if (!token) return { ok: false, reason: 'no bearer token' };
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'RS256') return { ok: false, reason: `algorithm ${String(header.alg)} is not accepted` };
    kid = header.kid;
  } catch {
    return { ok: false, reason: 'not a JWT' };
  }
  if (!kid) return { ok: false, reason: 'no key id' };
  let key: Key | null;
  try {
    key = await keyFor(cfg, kid);
  } catch (e) {
    return { ok: false, reason: `the signing keys could not be read: ${(e as Error).message}` };
  }
  if (!key) return { ok: false, reason: 'unknown signing key' };
  if (key.endorsements && !key.endorsements.includes(activity.channelId)) return { ok: false, reason: `the key does not endorse channel ${activity.channelId}` };
  try {
    const { payload } = await jwtVerify(token, key.key, { issuer: BOT_FRAMEWORK_ISSUER, audience: cfg.appId, algorithms: ['RS256'], clockTolerance: SKEW_S });
    if (typeof payload.serviceUrl !== 'string' || !sameUrl(payload.serviceUrl, activity.serviceUrl)) return { ok: false, reason: 'the serviceUrl claim does not match the activity' };
    return { ok: true, claims: payload };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

/** Tests and a rotated key set: forget what was fetched. */
export function forgetConnectorKeys(): void {
  cached = null;
}
