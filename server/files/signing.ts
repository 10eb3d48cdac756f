import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '@/db/client';
import { ensureAppSecret } from '@/server/secrets/app-secret';

/**
 * The key that signs upload URLs: STEWARD_SIGNING_SECRET, or one generated on first use
 * and kept in Postgres so every instance signs and checks alike.
 */
export async function signingSecret(db: Db): Promise<string> {
  if (process.env.STEWARD_SIGNING_SECRET) return process.env.STEWARD_SIGNING_SECRET;
  return ensureAppSecret(db, 'url-signing', () => randomBytes(32).toString('hex'));
}

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('hex');

export async function sign(db: Db, purpose: string, id: string, expiresAt: number): Promise<string> {
  return mac(await signingSecret(db), `${purpose}:${id}:${expiresAt}`);
}

export async function verify(db: Db, purpose: string, id: string, expiresAt: number, signature: string): Promise<boolean> {
  const expected = Buffer.from(await sign(db, purpose, id, expiresAt), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
