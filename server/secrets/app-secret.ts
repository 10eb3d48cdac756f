import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { appSecrets } from '@/db/schema';
import { masterKey } from './master-key';
import { isWrapped, unwrapSecret, wrapSecret } from './wrap';

const cache = new WeakMap<Db, Map<string, Promise<string>>>();

/**
 * A deployment secret: generated on first use and kept in Postgres so every instance agrees
 * (the caller prefers an environment variable when one is set), always wrapped with the master
 * key so the database alone never holds it in clear. Cached per database.
 */
export function ensureAppSecret(db: Db, name: string, make: () => string | Promise<string>): Promise<string> {
  let known = cache.get(db);
  if (!known) cache.set(db, (known = new Map()));
  let pending = known.get(name);
  if (!pending) {
    pending = load(db, name, make);
    pending.catch(() => known.delete(name));
    known.set(name, pending);
  }
  return pending;
}

async function load(db: Db, name: string, make: () => string | Promise<string>): Promise<string> {
  const master = await masterKey();
  const read = async () => (await db.select().from(appSecrets).where(eq(appSecrets.name, name)))[0];
  let row = await read();
  if (!row) {
    await db.insert(appSecrets).values({ name, value: wrapSecret(master, name, await make()) }).onConflictDoNothing();
    row = await read();
  }
  if (isWrapped(row.value)) return unwrapSecret(master, name, row.value);
  // Written in clear by an earlier version: wrap it now and keep using the same secret, so
  // sessions, signed URLs and sealed tokens made before the upgrade stay valid.
  await db
    .update(appSecrets)
    .set({ value: wrapSecret(master, name, row.value) })
    .where(and(eq(appSecrets.name, name), eq(appSecrets.value, row.value)));
  return row.value;
}
