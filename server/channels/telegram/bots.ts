import { createHash, randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, channelConnections, channelIdentities, type AssistantRow, type ChannelConnectionRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { visibleAssistant } from '@/server/assistants/access';
import { recordAudit } from '@/server/audit/record';
import { AppError, badRequest, invalidFields, notFound } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { openJson, sealJson } from '@/server/secrets/sealed';
import type { Connection } from '../adapter';
import { publicBase } from '../providers';
import { deleteWebhook, getMe, setWebhook } from './api';

/*
 * An assistant's own Telegram bot (issue 41). The user gives the token @BotFather made; Steward
 * asks getMe who the bot is, points its webhook here with a fresh secret_token (setWebhook), and
 * keeps the token and the secret sealed (never returned, never readable from a dump). One bot
 * serves one assistant. The owner proves their Telegram account by opening the bot's deep link
 * (t.me/<bot>?start=<code>) and pressing Start: the code is kept as a hash, good once, for a day.
 */

const PURPOSE = 'channel-connection';
const LINK_TTL_MS = 24 * 3_600_000;
type Secrets = { token: string; webhookSecret: string };

export const webhookPath = (connectionId: string) => `/api/channels/telegram/webhooks/${connectionId}`;
const hash = (code: string) => createHash('sha256').update(code).digest('hex');

export const connectionOf = (row: ChannelConnectionRow): Connection => ({
  id: row.id,
  channel: 'telegram',
  accountId: row.accountId,
  assistantId: row.assistantId,
  externalId: row.externalId,
  name: row.name,
});

export async function connectionById(db: Db, id: string): Promise<ChannelConnectionRow | null> {
  const [row] = await db.select().from(channelConnections).where(and(eq(channelConnections.id, id), eq(channelConnections.channel, 'telegram')));
  return row ?? null;
}

export const connectionOfAssistant = async (db: Db, assistantId: string) =>
  (await db.select().from(channelConnections).where(and(eq(channelConnections.assistantId, assistantId), eq(channelConnections.channel, 'telegram'))))[0] ?? null;

export const connectionOfBot = async (db: Db, botId: string) =>
  (await db.select().from(channelConnections).where(and(eq(channelConnections.externalId, botId), eq(channelConnections.channel, 'telegram'))))[0] ?? null;

export const secretsOf = (db: Db, row: Pick<ChannelConnectionRow, 'sealed'>) => openJson<Secrets>(db, row.sealed, PURPOSE);

/** Who may connect a bot: an account-wide credential, or the user whose own assistant it is. */
async function ownAssistant(db: Db, actor: Actor, assistantId: string): Promise<AssistantRow> {
  const assistant = await visibleAssistant(db, actor, assistantId);
  if (isAccountWide(actor)) return assistant;
  if (assistant.scope !== 'user' || assistant.userId !== actor.user?.id) {
    throw new AppError(403, 'not_assistant_owner', 'Only the user whose own assistant it is (or an account-wide credential) connects its Telegram bot');
  }
  return assistant;
}

async function present(db: Db, row: ChannelConnectionRow, base: string) {
  const [linked] = await db
    .select({ id: channelIdentities.id })
    .from(channelIdentities)
    .where(and(eq(channelIdentities.provider, 'telegram'), eq(channelIdentities.appId, row.id)))
    .limit(1);
  return {
    id: row.id,
    assistantId: row.assistantId,
    botId: row.externalId,
    username: row.name,
    webhookUrl: `${base}${webhookPath(row.id)}`,
    ownerLinked: Boolean(linked),
    createdAt: row.createdAt.toISOString(),
  };
}

/** Connects (or replaces) the assistant's bot: getMe, setWebhook with a new secret, sealed. */
export async function connectTelegramBot(db: Db, actor: Actor, assistantId: string, token: string, requestUrl: string) {
  const assistant = await ownAssistant(db, actor, assistantId);
  const me = await getMe(token);
  if (!me.ok) {
    if (me.status === null) throw new AppError(502, 'provider_unreachable', `Telegram could not be reached to check the token: ${me.error}`);
    throw invalidFields([{ field: 'token', problem: `Telegram refused it (${me.error})` }]);
  }
  if (!me.result.is_bot) throw invalidFields([{ field: 'token', problem: 'is not a bot’s token' }]);
  const taken = await connectionOfBot(db, me.result.id);
  if (taken && taken.assistantId !== assistant.id) throw new AppError(409, 'telegram_bot_in_use', 'This bot is connected to another assistant: disconnect it there first');
  const current = taken ?? (await connectionOfAssistant(db, assistant.id));
  const id = current?.id ?? newId();
  const base = publicBase(requestUrl);
  const webhookSecret = randomBytes(32).toString('base64url');
  const set = await setWebhook(token, `${base}${webhookPath(id)}`, webhookSecret);
  if (!set.ok) {
    if (set.status === null) throw new AppError(502, 'provider_unreachable', `Telegram could not be reached to set the webhook: ${set.error}`);
    throw badRequest(`Telegram refused the webhook (${set.error}); STEWARD_PUBLIC_URL must be a public https address`, {}, 'telegram_webhook_refused');
  }
  const sealed = await sealJson(db, { token, webhookSecret } satisfies Secrets, PURPOSE);
  const row = await db.transaction(async (tx) => {
    // A bot replaced by another: the old one's links speak for nobody any more.
    if (current && current.externalId !== me.result.id) {
      await tx.delete(channelIdentities).where(and(eq(channelIdentities.provider, 'telegram'), eq(channelIdentities.appId, current.id)));
    }
    const [saved] = await tx
      .insert(channelConnections)
      .values({ id, accountId: assistant.accountId, assistantId: assistant.id, channel: 'telegram', externalId: me.result.id, name: me.result.username, sealed })
      .onConflictDoUpdate({ target: channelConnections.id, set: { externalId: me.result.id, name: me.result.username, sealed, updatedAt: sql`now()` } })
      .returning();
    await recordAudit(tx, actor, 'channel_connection.connected', { type: 'channel_connection', id }, { after: { channel: 'telegram', assistantId: assistant.id, botId: me.result.id, username: me.result.username } });
    return saved!;
  });
  // The old bot, if there was one, stops posting here.
  if (current && current.externalId !== me.result.id) {
    const old = await secretsOf(db, current).catch(() => null);
    if (old) await deleteWebhook(old.token).catch(() => undefined);
  }
  return { created: !current, body: { ok: true as const, telegramBot: await present(db, row, base) } };
}

export async function getTelegramBot(db: Db, actor: Actor, assistantId: string, requestUrl: string) {
  const assistant = await visibleAssistant(db, actor, assistantId);
  const row = await connectionOfAssistant(db, assistant.id);
  if (!row) throw notFound('Telegram bot');
  return { ok: true as const, telegramBot: await present(db, row, publicBase(requestUrl)) };
}

/** Disconnects: the webhook is removed at Telegram (best effort), the token forgotten, the owner's link gone. */
export async function disconnectTelegramBot(db: Db, actor: Actor, assistantId: string) {
  const assistant = await ownAssistant(db, actor, assistantId);
  const row = await connectionOfAssistant(db, assistant.id);
  if (!row) throw notFound('Telegram bot');
  const secrets = await secretsOf(db, row).catch(() => null);
  if (secrets) {
    const removed = await deleteWebhook(secrets.token);
    if (!removed.ok) logger.warn({ connectionId: row.id, error: removed.error }, 'telegram: the webhook could not be removed at Telegram; the bot is disconnected here anyway');
  }
  await db.transaction(async (tx) => {
    await tx.delete(channelIdentities).where(and(eq(channelIdentities.provider, 'telegram'), eq(channelIdentities.appId, row.id)));
    await tx.delete(channelConnections).where(eq(channelConnections.id, row.id));
    await recordAudit(tx, actor, 'channel_connection.disconnected', { type: 'channel_connection', id: row.id }, { before: { channel: 'telegram', assistantId: assistant.id, botId: row.externalId } });
  });
  return { ok: true as const, telegramBot: { id: row.id, deleted: true as const } };
}

/** A new one-time link for the assistant's owner (the user themself): t.me/<bot>?start=<code>, good for a day. */
export async function telegramLink(db: Db, actor: Actor, assistantId: string, now = new Date()) {
  const assistant = await visibleAssistant(db, actor, assistantId);
  if (assistant.scope !== 'user' || !actor.user || assistant.userId !== actor.user.id) {
    throw new AppError(403, 'not_assistant_owner', 'Only the assistant’s owner links their own Telegram account');
  }
  const row = await connectionOfAssistant(db, assistant.id);
  if (!row) throw notFound('Telegram bot');
  const code = randomBytes(24).toString('base64url');
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS);
  await db.update(channelConnections).set({ linkCodeHash: hash(code), linkCodeExpiresAt: expiresAt }).where(eq(channelConnections.id, row.id));
  return { ok: true as const, linkUrl: `https://t.me/${row.name}?start=${code}`, expiresAt: expiresAt.toISOString() };
}

/**
 * `/start <code>` from a Telegram user in a private chat with the bot: when the code is the one
 * issued (and not expired), that Telegram user is linked to the assistant's owner and the code is
 * spent. Returns the owner's id, or null (a wrong, used or old code links nobody).
 */
export async function redeemLinkCode(db: Db, connectionId: string, code: string, telegramUserId: string, now = new Date()): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(channelConnections)
      .set({ linkCodeHash: null, linkCodeExpiresAt: null })
      .where(and(eq(channelConnections.id, connectionId), eq(channelConnections.linkCodeHash, hash(code)), sql`${channelConnections.linkCodeExpiresAt} > ${now}`))
      .returning();
    if (!row) return null;
    const [owner] = await tx.select({ userId: assistants.userId, scope: assistants.scope }).from(assistants).where(eq(assistants.id, row.assistantId));
    if (!owner?.userId || owner.scope !== 'user') return null;
    const assistant = { user_id: owner.userId };
    // One Telegram account per owner and bot: an earlier link of the owner through this bot is replaced.
    await tx.delete(channelIdentities).where(and(eq(channelIdentities.provider, 'telegram'), eq(channelIdentities.appId, row.id), eq(channelIdentities.userId, assistant.user_id)));
    await tx
      .insert(channelIdentities)
      .values({ accountId: row.accountId, userId: assistant.user_id, provider: 'telegram', workspaceId: row.externalId, externalUserId: telegramUserId, appId: row.id })
      .onConflictDoUpdate({
        target: [channelIdentities.accountId, channelIdentities.provider, channelIdentities.workspaceId, channelIdentities.externalUserId],
        set: { userId: assistant.user_id, appId: row.id, updatedAt: sql`now()` },
      });
    return assistant.user_id;
  });
}
