import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { users } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';

/**
 * Many memories for one user, written in one SQL statement (the service would take minutes for
 * thousands): everyday sentences built from a few word lists, so the noise shares vocabulary with
 * whatever a test looks for (days, people, places, food, work). Created `startMinutesAgo` minutes
 * ago and newer, one a minute: anything a test writes before is older than all of them.
 */
export async function seedMemories(db: Db, owner: { accountId: string; userId: string }, count: number, startMinutesAgo = count + 10) {
  await db.execute(sql.raw(`
    INSERT INTO memories (id, account_id, user_id, tags, content, search_config, source, created_at, updated_at)
    SELECT substr(md5('${owner.userId}' || g), 1, 24), '${owner.accountId}', '${owner.userId}', '["general"]'::jsonb,
      (ARRAY['Prefers', 'Dislikes', 'Mentioned', 'Asked about', 'Booked', 'Cancelled', 'Planned', 'Reviewed'])[1 + g % 8] || ' ' ||
      (ARRAY['the team meeting', 'a dinner', 'the quarterly report', 'a flight', 'the gym class', 'a haircut', 'the school pickup', 'a phone call', 'the budget review', 'a coffee'])[1 + (g / 8) % 10] || ' with ' ||
      (ARRAY['Alex', 'Sam', 'Jordan', 'Taylor', 'Morgan', 'Casey', 'Riley', 'Jamie', 'Avery', 'Quinn', 'Drew', 'Robin'])[1 + (g / 80) % 12] || ' on ' ||
      (ARRAY['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'])[1 + g % 7] || ' at ' ||
      (ARRAY['the office', 'home', 'the cafe downtown', 'the airport', 'the park', 'the restaurant', 'the clinic'])[1 + (g / 3) % 7] || ' (note ' || g || ')',
      'english', 'user', now() - make_interval(mins => ${startMinutesAgo} - g), now() - make_interval(mins => ${startMinutesAgo} - g)
    FROM generate_series(1, ${count}) g
  `));
}

/** The user as the agent acts for them (what a run's context is read as). */
export async function actorOf(db: Db, accountId: string, userId: string): Promise<UserActor> {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  return {
    accountId,
    credential: { kind: 'api_key', keyId: 'test' },
    level: 'user',
    organizationId: null,
    user: user!,
    actingVia: 'user_key',
    scopes: [],
    account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null },
  };
}
