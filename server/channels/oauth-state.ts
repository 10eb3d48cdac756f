import { SignJWT, jwtVerify } from 'jose';
import type { Db } from '@/db/client';
import { signingSecret } from '@/server/files/signing';
import { badRequest } from '@/server/http/errors';

export type OAuthState = { provider: 'slack' | 'teams'; purpose: string; accountId: string; userId: string | null; assistantId?: string; target?: Record<string, string> };

const key = async (db: Db) => new TextEncoder().encode(await signingSecret(db));

/** A signed, expiring (10 minutes) state parameter: the callback trusts nothing else. */
export async function signState(db: Db, state: OAuthState): Promise<string> {
  return new SignJWT({ ...state }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('10m').setAudience('steward-oauth').sign(await key(db));
}

export async function readState(db: Db, token: string): Promise<OAuthState> {
  try {
    const { payload } = await jwtVerify(token, await key(db), { audience: 'steward-oauth', algorithms: ['HS256'] });
    return payload as unknown as OAuthState;
  } catch {
    throw badRequest('state: invalid or expired; start the connection again');
  }
}
