import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Db } from '@/db/client';
import { ensureAppSecret } from '@/server/secrets/app-secret';

/*
 * What lets a media stream in (issue 48). The WebSocket at /api/channels/twilio/media is public,
 * so the TwiML that opens it carries a token (a <Parameter>, since Twilio passes no query string
 * on a stream URL) signed HS256 with a key of its own, naming Steward's call and Twilio's CallSid,
 * good for STREAM_TOKEN_TTL_MS. The start message is believed only as far as the token goes: its
 * CallSid must be the token's, and the call's row takes one stream (stream_sid), so a token
 * copied from a TwiML log opens nothing once the call's stream began, nor after two minutes.
 */

export const STREAM_TOKEN_TTL_MS = 2 * 60_000;
const AUDIENCE = 'steward-twilio-media';

const key = async (db: Db) => new TextEncoder().encode(await ensureAppSecret(db, 'voice-stream-key', () => randomBytes(32).toString('base64url')));

export async function streamToken(db: Db, claims: { callId: string; callSid: string }, now = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ sid: claims.callSid })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.callId)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + STREAM_TOKEN_TTL_MS / 1000)
    .sign(await key(db));
}

/** The call the token names, or null (forged, expired, or for another CallSid). */
export async function verifyStreamToken(db: Db, token: string, callSid: string): Promise<{ callId: string } | null> {
  try {
    const { payload } = await jwtVerify(token, await key(db), { audience: AUDIENCE, algorithms: ['HS256'] });
    if (typeof payload.sub !== 'string' || payload.sid !== callSid) return null;
    return { callId: payload.sub };
  } catch {
    return null;
  }
}
