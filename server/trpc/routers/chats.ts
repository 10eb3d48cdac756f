import { ChatParams, CreateChatBody, ListChatsQuery, MessagesQuery } from '@/server/chats/contracts';
import { openTurn } from '@/server/chats/open-turn';
import { createChat, getChat, listChats, listMessages } from '@/server/chats/service';
import { getChatUsage } from '@/server/chats/usage';
import { router, userProcedure } from '../init';

/**
 * The chat pages' reads and chat creation. A turn itself streams over server-sent events
 * (server/trpc/chat-stream.ts), which tRPC's request/response calls do not carry.
 */
export const chatsRouter = router({
  list: userProcedure.input(ListChatsQuery.omit({ userEmail: true }).prefault({})).query(({ ctx, input }) => listChats(ctx.db, ctx.actor, input)),
  create: userProcedure.input(CreateChatBody).mutation(({ ctx, input }) => createChat(ctx.db, ctx.actor, input)),
  get: userProcedure.input(ChatParams).query(({ ctx, input }) => getChat(ctx.db, ctx.actor, input.chatId)),
  messages: userProcedure.input(ChatParams.extend(MessagesQuery.shape)).query(({ ctx, input: { chatId, ...q } }) => listMessages(ctx.db, ctx.actor, chatId, q)),
  /** The turn still running, to resume its stream after a reload. */
  openTurn: userProcedure.input(ChatParams).query(({ ctx, input }) => openTurn(ctx.db, ctx.actor, input.chatId)),
  usage: userProcedure.input(ChatParams).query(({ ctx, input }) => getChatUsage(ctx.db, ctx.actor, input.chatId)),
});
