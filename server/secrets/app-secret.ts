import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { appSecrets } from '@/db/schema';

const cache = new WeakMap<Db, Map<string, string>>();

/**
 * A deployment secret: generated on first use and kept in Postgres so every instance agrees
 * (the caller prefers an environment variable when one is set). Cached per database.
 */
export async function ensureAppSecret(db: Db, name: string, make: () => string): Promise<string> {
  let known = cache.get(db);
  if (!known) cache.set(db, (known = new Map()));
  const hit = known.get(name);
  if (hit) return hit;
  await db.insert(appSecrets).values({ name, value: make() }).onConflictDoNothing();
  const [row] = await db.select().from(appSecrets).where(eq(appSecrets.name, name));
  known.set(name, row.value);
  return row.value;
}
