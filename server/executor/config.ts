import { randomBytes } from 'node:crypto';
import type { Db } from '@/db/client';
import { publicOrigin } from '@/server/http/public-origin';
import { ensureAppSecret } from '@/server/secrets/app-secret';
import { sha256Hex } from './hash';

/** True when a real Inngest server is configured; the built-in executor then stays off. */
export const usesInngestServer = () => Boolean(process.env.INNGEST_BASE_URL);

/** Where the serve endpoint lives in the app. */
export const SERVE_PATH = '/api/inngest';

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

/** This process's own HTTP server seen from the same machine: loopback, unless it listens on one address only. */
export function loopbackServeUrl(port: number, host = process.env.HOST): string {
  const wildcard = !host || host === '0.0.0.0' || host === '::';
  const name = wildcard ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}${SERVE_PATH}`;
}

/**
 * The one URL the serve endpoint registers and is called at. It is pinned from configuration so
 * that a request's Host can never redirect the executor's signed calls (with event data) elsewhere:
 * - STEWARD_INNGEST_SERVE_URL, which npm start sets once for every process it starts;
 * - with an Inngest server: INNGEST_SERVE_ORIGIN or the public origin, plus /api/inngest;
 * - with the built-in executor: this server on loopback (the executor runs beside it).
 */
export function inngestServeUrl(): string {
  const pinned = process.env.STEWARD_INNGEST_SERVE_URL;
  if (pinned) return new URL(pinned).href;
  if (usesInngestServer()) return new URL(SERVE_PATH, process.env.INNGEST_SERVE_ORIGIN ?? publicOrigin().origin).href;
  return loopbackServeUrl(Number(process.env.PORT ?? 3000));
}
