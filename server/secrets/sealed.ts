import { randomBytes } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import type { Db } from '@/db/client';
import { ensureAppSecret } from './app-secret';

/**
 * The key that seals secrets at rest (provider tokens): STEWARD_ENCRYPTION_KEY (32 bytes,
 * base64), or one generated once and kept in Postgres wrapped with the master key, so a
 * database dump alone does not open the tokens.
 */
async function sealingKey(db: Db): Promise<Uint8Array> {
  const configured = process.env.STEWARD_ENCRYPTION_KEY;
  const b64 = configured ?? (await ensureAppSecret(db, 'sealing-key', () => randomBytes(32).toString('base64')));
  const key = Buffer.from(b64, 'base64');
  if (key.length !== 32) throw new Error('STEWARD_ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  return new Uint8Array(key);
}

/** JSON sealed as a compact JWE (dir + A256GCM): confidential and tamper-evident. */
export async function sealJson(db: Db, value: unknown, purpose: string): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(value)))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: purpose })
    .encrypt(await sealingKey(db));
}

export async function openJson<T = unknown>(db: Db, sealed: string, purpose: string): Promise<T> {
  const { plaintext, protectedHeader } = await compactDecrypt(sealed, await sealingKey(db));
  if (protectedHeader.cty !== purpose) throw new Error(`sealed value is for ${protectedHeader.cty}, not ${purpose}`);
  return JSON.parse(new TextDecoder().decode(plaintext)) as T;
}
