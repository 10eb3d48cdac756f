import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Db } from '@/db/client';
import { ensureAppSecret } from '@/server/secrets/app-secret';

/*
 * What lets the hosted app's live voice WebSocket in (issue 48): a token the `voice.live`
 * procedure issues to the signed-in person for their own chat, signed HS256 with a key of its own
 * (`voice-live-key`, sealed like every app secret), naming the account, the person and the chat,
 * good for LIVE_TOKEN_TTL_MS: long enough for the page to open the socket it asked for, too short
 * to be worth stealing from a log. It opens one conversation: its id is spent on the first upgrade
 * this process admits (a copy that reaches another process is still bound by the minute, the
 * Origin check and the person's own session cookie).
 */

export const LIVE_TOKEN_TTL_MS = 60_000;
const AUDIENCE = 'steward-chat-live-voice';

export type LiveVoiceClaims = { accountId: string; userId: string; chatId: string };

const key = async (db: Db) => new TextEncoder().encode(await ensureAppSecret(db, 'voice-live-key', () => randomBytes(32).toString('base64url')));

export async function liveVoiceToken(db: Db, claims: LiveVoiceClaims, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + LIVE_TOKEN_TTL_MS / 1000;
  const token = await new SignJWT({ acct: claims.accountId, chat: claims.chatId })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setAudience(AUDIENCE)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(await key(db));
  return { token, expiresAt: new Date(exp * 1000) };
}

export type ReadToken = LiveVoiceClaims & { id: string; expiresAtMs: number };

/** What the token claims, if it is ours, unexpired and for this chat (null otherwise). It is not spent yet. */
export async function readLiveVoiceToken(db: Db, token: string, chatId: string, now = new Date()): Promise<ReadToken | null> {
  if (!token || token.length > 2_000) return null;
  try {
    const { payload } = await jwtVerify(token, await key(db), { audience: AUDIENCE, algorithms: ['HS256'], currentDate: now });
    if (typeof payload.sub !== 'string' || typeof payload.acct !== 'string' || payload.chat !== chatId || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return null;
    return { accountId: payload.acct, userId: payload.sub, chatId, id: payload.jti, expiresAtMs: payload.exp * 1000 };
  } catch {
    return null;
  }
}

/** Token ids spent here, each kept until its token expires. */
const spent = new Map<string, number>();

/** Spends a token read by readLiveVoiceToken: true the first time, false after. */
export function spendLiveVoiceToken(t: ReadToken, now = new Date()): boolean {
  for (const [id, until] of spent) if (until <= now.getTime()) spent.delete(id);
  if (spent.has(t.id)) return false;
  spent.set(t.id, t.expiresAtMs);
  return true;
}
