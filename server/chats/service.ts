import { assistantInactive } from '@/server/assistants/inactive';
import { and, asc, count, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { assistants, chatMessages, chats, rosterEntries, users, type ChatRow, type UserRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { badRequest, forbidden } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { findChatForActor, requireChatReader } from './access';
import type { AddMessageBody, CreateChatBody, ListChatsQuery, MessagesQuery } from './contracts';
import { readableChatFiles } from './files';
import { appendChatMessage } from './messages';
import { presentChat, presentChatMessage, type ChatAssistant, type ChatOwner } from './present';
import { chatTier } from './tier';

const ownerColumns = { id: users.id, email: users.email, firstName: users.firstName, lastName: users.lastName, avatarUrl: users.avatarUrl };
const assistantColumns = { id: assistants.id, name: assistants.name, email: assistants.email };

/** One chat with its owner and assistant, as every answer shows it. */
async function shown(db: Db, chat: ChatRow) {
  const [row] = await db
    .select({ owner: ownerColumns, assistant: assistantColumns })
    .from(users)
    .leftJoin(assistants, eq(assistants.id, chat.assistantId))
    .where(eq(users.id, chat.userId));
  return presentChat(chat, row.owner, row.assistant?.id ? (row.assistant as ChatAssistant) : null);
}

/** The assistant must be on the user's roster (and not released); otherwise the request names it (404 would hide a typo less kindly). */
async function rosterAssistant(db: Db, user: UserRow, assistantId: string): Promise<string> {
  const [row] = await db
    .select({ id: assistants.id, status: assistants.status })
    .from(rosterEntries)
    .innerJoin(assistants, eq(assistants.id, rosterEntries.assistantId))
    .where(and(eq(rosterEntries.userId, user.id), eq(assistants.accountId, user.accountId), isNull(assistants.deletedAt), or(eq(assistants.id, assistantId), eq(assistants.email, assistantId.toLowerCase()))))
    .limit(1);
  if (!row) throw forbidden("assistantId: not one of the user's assistants", 'assistant_not_on_roster');
  if (row.status === 'inactive') throw assistantInactive('assistantId');
  return row.id;
}

export async function createChat(db: Db, actor: Actor, input: z.infer<typeof CreateChatBody>) {
  if (!actor.user) throw badRequest('A chat belongs to a user: act as one (X-User-Email or a user key)', { field: 'X-User-Email' }, 'user_required');
  const user = actor.user;
  const assistantId = await rosterAssistant(db, user, input.assistantId);
  const [chat] = await db
    .insert(chats)
    .values({
      accountId: actor.accountId,
      userId: user.id,
      assistantId,
      title: input.title ?? null,
      metadata: input.metadata ?? {},
      tags: input.tags ?? [],
      modelTier: input.modelTier ?? (await chatTier(db, user)),
      effort: input.effort ?? null,
    })
    .returning();
  return { ok: true as const, chat: await shown(db, chat) };
}

export async function getChat(db: Db, actor: Actor, chatId: string) {
  return { ok: true as const, chat: await shown(db, await findChatForActor(db, actor, chatId)) };
}

/** Most recent first (last message, else creation). A user lists their own; an account-wide key the account's, narrowed by userEmail. */
export async function listChats(db: Db, actor: Actor, q: z.infer<typeof ListChatsQuery>) {
  requireChatReader(actor);
  const filters: SQL[] = [eq(chats.accountId, actor.accountId)];
  if (actor.user) filters.push(eq(chats.userId, actor.user.id));
  else if (q.userEmail) filters.push(eq(users.email, q.userEmail.toLowerCase()));
  if (q.status) filters.push(eq(chats.status, q.status));
  if (q.assistantId) filters.push(eq(chats.assistantId, q.assistantId));
  if (q.platform) filters.push(inArray(chats.platform, q.platform));
  if (q.q) filters.push(sql`lower(coalesce(${chats.title}, '')) LIKE ${`%${q.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
  const where = and(...filters);
  const { limit, offset } = pageWindow(q);
  const [rows, [{ n }]] = await Promise.all([
    db
      .select({ chat: chats, owner: ownerColumns, assistant: assistantColumns })
      .from(chats)
      .innerJoin(users, eq(users.id, chats.userId))
      .leftJoin(assistants, eq(assistants.id, chats.assistantId))
      .where(where)
      .orderBy(desc(chats.activityAt), desc(chats.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(chats).innerJoin(users, eq(users.id, chats.userId)).where(where),
  ]);
  return {
    ok: true as const,
    chats: rows.map((r) => presentChat(r.chat, r.owner as ChatOwner, r.assistant?.id ? (r.assistant as ChatAssistant) : null)),
    ...pageInfo(q, n),
  };
}

export async function deleteChat(db: Db, actor: Actor, chatId: string) {
  const chat = await findChatForActor(db, actor, chatId);
  // Its messages, turns and their events go with it (foreign keys cascade).
  await db.delete(chats).where(eq(chats.id, chat.id));
  return { ok: true as const, chat: { id: chat.id, deleted: true as const, message: 'The chat and its messages were deleted' } };
}

/** Adds a message without running the assistant (spec: POST /chats/{chatId}/messages). */
export async function addMessage(db: Db, actor: Actor, chatId: string, input: z.infer<typeof AddMessageBody>) {
  requireUser(actor);
  const chat = await findChatForActor(db, actor, chatId);
  const message = await db.transaction(async (tx) => {
    const files = await readableChatFiles(tx, actor, input.files);
    return appendChatMessage(tx, chat, { ...input, role: input.role ?? 'user', files });
  });
  return { ok: true as const, message: presentChatMessage(message) };
}

/** Oldest first, as a conversation reads (spec leaves the order open). */
export async function listMessages(db: Db, actor: Actor, chatId: string, q: z.infer<typeof MessagesQuery>) {
  const chat = await findChatForActor(db, actor, chatId);
  const { limit, offset } = pageWindow(q);
  const rows = await db.select().from(chatMessages).where(eq(chatMessages.chatId, chat.id)).orderBy(asc(chatMessages.createdAt), asc(chatMessages.id)).limit(limit).offset(offset);
  return { ok: true as const, messages: rows.map(presentChatMessage), ...pageInfo(q, chat.messageCount) };
}
