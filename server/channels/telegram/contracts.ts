import { z } from 'zod';

/** PUT /assistants/{assistantId}/telegram-bot: the token @BotFather gave (`<bot id>:<secret>`). */
export const TelegramBotBody = z.object({
  token: z
    .string()
    .trim()
    .regex(/^\d{3,20}:[A-Za-z0-9_-]{30,100}$/, 'must be a bot token as @BotFather gives it (123456789:AA…)'),
});

export const AssistantParams = z.object({ assistantId: z.string().min(1).max(100) });

export const TelegramBot = z.object({
  id: z.string(),
  assistantId: z.string(),
  botId: z.string(),
  username: z.string().nullable(),
  webhookUrl: z.string().describe('Where Telegram posts updates (set with setWebhook and a secret_token on connect)'),
  ownerLinked: z.boolean().describe('Whether the assistant’s owner has linked their Telegram account (by opening linkUrl and pressing Start)'),
  createdAt: z.string(),
});

export const TelegramBotEnvelope = z.object({ ok: z.literal(true), telegramBot: TelegramBot });
export const TelegramLinkEnvelope = z.object({
  ok: z.literal(true),
  linkUrl: z.string().describe('t.me deep link the owner opens in Telegram: pressing Start proves their Telegram account is theirs'),
  expiresAt: z.string(),
});
export const TelegramBotDeleted = z.object({ ok: z.literal(true), telegramBot: z.object({ id: z.string(), deleted: z.literal(true) }) });
