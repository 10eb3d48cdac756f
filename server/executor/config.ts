import { randomBytes } from 'node:crypto';
import type { Db } from '@/db/client';
import { ensureAppSecret } from '@/server/secrets/app-secret';
import { sha256Hex } from './hash';

/** True when a real Inngest server is configured; the built-in executor then stays off. */
export const usesInngestServer = () => Boolean(process.env.INNGEST_BASE_URL);

/**
 * Keys for the built-in executor: INNGEST_SIGNING_KEY / INNGEST_EVENT_KEY when set, else
 * generated once and kept in Postgres so every app process signs and checks alike.
 */
export async function ensureExecutorKeys(db: Db): Promise<{ signingKey: string; eventKey: string }> {
  const signingKey = process.env.INNGEST_SIGNING_KEY ?? (await ensureAppSecret(db, 'inngest-signing-key', () => `signkey-prod-${randomBytes(32).toString('hex')}`));
  const eventKey = process.env.INNGEST_EVENT_KEY ?? (await ensureAppSecret(db, 'inngest-event-key', () => randomBytes(24).toString('hex')));
  return { signingKey, eventKey };
}

/** What the SDK sends as Authorization when registering: the SHA-256 of the key's hex part, with its prefix. */
export function hashedSigningKey(signingKey: string): string {
  const prefix = signingKey.match(/^signkey-\w+-/)?.[0] ?? '';
  return prefix + sha256Hex(Buffer.from(signingKey.slice(prefix.length), 'hex'));
}
