import { defineEndpoint } from '@/server/http/endpoint';
import { connectTelegramBot, disconnectTelegramBot, getTelegramBot, telegramLink } from './bots';
import { AssistantParams, TelegramBotBody, TelegramBotDeleted, TelegramBotEnvelope, TelegramLinkEnvelope } from './contracts';

const tags = ['Channels'];

/** An assistant's own Telegram bot: connect it with its token, read it, disconnect it, and the owner's link. */
export const telegramEndpoints = [
  defineEndpoint({
    method: 'PUT',
    path: '/assistants/{assistantId}/telegram-bot',
    summary: 'Connect the assistant’s own Telegram bot with the token @BotFather gave: checked with getMe, sealed (never returned), its webhook set here with a secret_token',
    description: 'By the user whose own assistant it is, or an account-wide credential. Sending another token replaces the bot. 409 `telegram_bot_in_use` when the bot serves another assistant.',
    tags,
    auth: 'any',
    params: AssistantParams,
    body: TelegramBotBody,
    response: TelegramBotEnvelope,
    errors: [400, 403, 404, 409, 502],
    handle: async ({ db, actor, params, body, req }) => (await connectTelegramBot(db, actor, params.assistantId, body.token, req.url)).body,
  }),
  defineEndpoint({
    method: 'GET',
    path: '/assistants/{assistantId}/telegram-bot',
    summary: 'The assistant’s Telegram bot: its id, @username, webhook and whether the owner linked their Telegram account (never the token)',
    tags,
    auth: 'any',
    params: AssistantParams,
    response: TelegramBotEnvelope,
    errors: [404],
    handle: ({ db, actor, params, req }) => getTelegramBot(db, actor, params.assistantId, req.url),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/assistants/{assistantId}/telegram-bot',
    summary: 'Disconnect the assistant’s Telegram bot: its webhook removed at Telegram, the token forgotten, the owner’s link gone',
    tags,
    auth: 'any',
    params: AssistantParams,
    response: TelegramBotDeleted,
    errors: [403, 404],
    handle: ({ db, actor, params }) => disconnectTelegramBot(db, actor, params.assistantId),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/assistants/{assistantId}/telegram-bot/link',
    summary: 'A one-time t.me link for the assistant’s owner: opening it and pressing Start links their Telegram account (good for 24 hours, once)',
    tags,
    auth: 'user',
    params: AssistantParams,
    response: TelegramLinkEnvelope,
    errors: [403, 404],
    handle: ({ db, actor, params }) => telegramLink(db, actor, params.assistantId),
  }),
];
