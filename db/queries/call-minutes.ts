import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { voiceCalls } from '../schema';

/**
 * Phone time of a chat's or a task's calls (issue 48: call minutes in usage): ended calls, their
 * seconds, and minutes as carriers bill them (each call rounded up to a whole minute).
 */
export type CallUsage = { calls: number; seconds: number; minutes: number };

export async function callUsage(db: Db, of: { chatId: string } | { taskId: string }): Promise<CallUsage> {
  const [row] = await db
    .select({
      calls: sql<number>`count(*)`.mapWith(Number),
      seconds: sql<number>`coalesce(sum(${voiceCalls.durationSec}), 0)`.mapWith(Number),
      minutes: sql<number>`coalesce(sum(ceil(${voiceCalls.durationSec} / 60.0)), 0)`.mapWith(Number),
    })
    .from(voiceCalls)
    .where(and('chatId' in of ? eq(voiceCalls.chatId, of.chatId) : eq(voiceCalls.taskId, of.taskId), isNotNull(voiceCalls.endedAt)));
  return row ?? { calls: 0, seconds: 0, minutes: 0 };
}
