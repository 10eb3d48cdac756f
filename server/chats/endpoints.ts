import { defineEndpoint } from '@/server/http/endpoint';
import { AddMessageBody, ChatEnvelope, ChatList, ChatParams, CreateChatBody, DeletedChat, ListChatsQuery, MessageEnvelope, MessageList, MessagesQuery } from './contracts';
import { addMessage, createChat, deleteChat, getChat, listChats, listMessages } from './service';

const tags = ['Chats'];
// An account key without X-User-Email may list, read and delete chats across users (spec document 2, Authentication).
const anyone = { tags, auth: 'any' as const };
const user = { tags, auth: 'user' as const };

/** The Chats resource (spec document 2); the streaming turn and usage are in turn-endpoints.ts. */
export const chatEndpoints = [
  defineEndpoint({
    ...anyone,
    method: 'GET',
    path: '/chats',
    summary: "The user's chats, most recent first (an account key without X-User-Email lists the account's, narrowed by userEmail)",
    query: ListChatsQuery,
    response: ChatList,
    handle: ({ db, actor, query }) => listChats(db, actor, query),
  }),
  defineEndpoint({
    ...anyone,
    method: 'POST',
    path: '/chats',
    summary: 'Open a chat with one of the user’s assistants',
    body: CreateChatBody,
    response: ChatEnvelope,
    status: 201,
    errors: [400, 403],
    handle: ({ db, actor, body }) => createChat(db, actor, body),
  }),
  defineEndpoint({
    ...anyone,
    method: 'GET',
    path: '/chats/{chatId}',
    summary: 'One chat',
    params: ChatParams,
    response: ChatEnvelope,
    errors: [404],
    handle: ({ db, actor, params }) => getChat(db, actor, params.chatId),
  }),
  defineEndpoint({
    ...anyone,
    method: 'DELETE',
    path: '/chats/{chatId}',
    summary: 'Delete a chat and its messages',
    params: ChatParams,
    response: DeletedChat,
    errors: [404],
    handle: ({ db, actor, params }) => deleteChat(db, actor, params.chatId),
  }),
  defineEndpoint({
    ...user,
    method: 'POST',
    path: '/chats/{chatId}/messages',
    summary: 'Add a message without running the assistant',
    params: ChatParams,
    body: AddMessageBody,
    response: MessageEnvelope,
    errors: [400, 404],
    handle: ({ db, actor, params, body }) => addMessage(db, actor, params.chatId, body),
  }),
  defineEndpoint({
    ...anyone,
    method: 'GET',
    path: '/chats/{chatId}/messages',
    summary: 'The chat’s messages, oldest first',
    params: ChatParams,
    query: MessagesQuery,
    response: MessageList,
    errors: [404],
    handle: ({ db, actor, params, query }) => listMessages(db, actor, params.chatId, query),
  }),
];
