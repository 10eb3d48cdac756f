import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { teamsConversations, type TeamsConversationRow } from '@/db/schema';
import type { Activity } from './activity';
import type { TeamsPerson } from './directory';

/*
 * A linked user's 1:1 conversation with the bot, kept from their latest authenticated activity:
 * where answers, notices and approval cards go (a bot cannot write first to someone it never
 * heard from without their conversation's serviceUrl). Its serviceUrl is one the Connector's
 * signed token vouched for.
 */

export async function rememberConversation(db: Db, person: TeamsPerson, activity: Activity): Promise<void> {
  const values = {
    tenantId: person.tenantId,
    aadObjectId: person.aadObjectId,
    teamsUserId: activity.from.id,
    botId: activity.recipient.id,
    conversationId: activity.conversation.id,
    serviceUrl: activity.serviceUrl,
  };
  await db
    .insert(teamsConversations)
    .values({ accountId: person.accountId, userId: person.userId, ...values })
    .onConflictDoUpdate({ target: [teamsConversations.accountId, teamsConversations.userId], set: { ...values, updatedAt: sql`now()` } });
}

export async function conversationOfUser(db: Db, accountId: string, userId: string): Promise<TeamsConversationRow | null> {
  const [row] = await db.select().from(teamsConversations).where(and(eq(teamsConversations.accountId, accountId), eq(teamsConversations.userId, userId)));
  return row ?? null;
}

export async function conversationById(db: Db, conversationId: string): Promise<TeamsConversationRow | null> {
  const [row] = await db.select().from(teamsConversations).where(eq(teamsConversations.conversationId, conversationId)).limit(1);
  return row ?? null;
}
