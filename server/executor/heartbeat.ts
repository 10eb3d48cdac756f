import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { appSecrets } from '@/db/schema';

/** The last heartbeat, kept as one row; returns the time recorded. */
export async function recordHeartbeat(db: Db, at: Date): Promise<{ at: string }> {
  await db
    .insert(appSecrets)
    .values({ name: 'heartbeat', value: at.toISOString() })
    .onConflictDoUpdate({ target: appSecrets.name, set: { value: sql`excluded.value` } });
  return { at: at.toISOString() };
}
