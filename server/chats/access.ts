import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { chats, type ChatRow } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { notFound } from '@/server/http/errors';

/** A caller that is neither a user nor account-wide is answered as the user level would (401). */
export function requireChatReader(actor: Actor): void {
  if (!isAccountWide(actor)) requireUser(actor);
}

/**
 * A chat the caller may reach: their own as a user; any of the account's with an account-wide key
 * (spec document 2, Authentication: list, read and delete across users). Another user's chat is 404.
 */
export async function findChatForActor(db: Db | Tx, actor: Actor, chatId: string): Promise<ChatRow> {
  requireChatReader(actor);
  const [chat] = await db.select().from(chats).where(and(eq(chats.id, chatId), eq(chats.accountId, actor.accountId)));
  if (!chat || (actor.user && chat.userId !== actor.user.id)) throw notFound('Chat');
  return chat;
}
