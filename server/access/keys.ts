import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PATTERN = /^ak_live_[0-9a-f]{64}$/;

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = `ak_live_${randomBytes(32).toString('hex')}`;
  return { key, hash: hashSecret(key), prefix: key.slice(0, 12) };
}

/** SHA-256 in hex; the one-shot `hash` (no Hash object) is a third of createHash's cost, and every API request pays it. */
export const hashSecret = (secret: string) => hash('sha256', secret, 'hex');

/** Whether a presented secret (a webhook's token, a subscription's clientState) is the one whose hash is kept; constant time, and nothing presented or kept is no. */
export const matchesSecretHash = (presented: string | null | undefined, storedHash: string | null | undefined): boolean =>
  Boolean(presented && storedHash) && sameHash(hashSecret(presented!), storedHash!);

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
