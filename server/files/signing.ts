import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { appSecrets } from '@/db/schema';

let cached: string | undefined;

/**
 * The key that signs upload URLs: STEWARD_SIGNING_SECRET, or one generated on first use
 * and kept in Postgres so every instance signs and checks alike.
 */
export async function signingSecret(db: Db): Promise<string> {
  if (process.env.STEWARD_SIGNING_SECRET) return process.env.STEWARD_SIGNING_SECRET;
  if (cached) return cached;
  await db.insert(appSecrets).values({ name: 'url-signing', value: randomBytes(32).toString('hex') }).onConflictDoNothing();
  const [row] = await db.select().from(appSecrets).where(eq(appSecrets.name, 'url-signing'));
  cached = row.value;
  return cached;
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
