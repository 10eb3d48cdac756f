import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { textChannels } from './channel-names';
import { assistants } from './assistants';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/*
 * Texts: SMS, WhatsApp and iMessage on an assistant's own number (server/channels/twilio,
 * server/channels/imessage, server/messaging/texts-*.ts). The numbers an assistant answers on,
 * every text received (kept once per provider message id: providers retry, and Twilio's signature
 * carries no timestamp, so a replayed webhook is recognised by its id), every text sent (its
 * intent recorded before the provider is called), who asked not to be texted, and the short
 * codes that approve a cart by text.
 */

export type TextChannel = (typeof textChannels)[number];
export const textProviders = ['twilio', 'sendblue'] as const;
export type TextProvider = (typeof textProviders)[number];

/**
 * A number an assistant answers on (a fulfilled phone-line request, or a line assigned by the
 * operator): which channels it serves and where it came from. One active line per number in the
 * deployment: an inbound text names its assistant by the number it reached.
 */
export const phoneLines = pgTable(
  'phone_lines',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    assistantId: text('assistant_id')
      .notNull()
      .references(() => assistants.id, { onDelete: 'cascade' }),
    requestId: text('request_id'),
    /** E.164. */
    number: text('number').notNull(),
    channels: jsonb('channels').$type<string[]>().notNull().default([]),
    /** `operator`: assigned with the admin CLI; `twilio`: bought through Twilio's API (STEWARD_TWILIO_PROVISION). */
    source: text('source', { enum: ['operator', 'twilio'] }).notNull(),
    /** Twilio's IncomingPhoneNumber sid (PN...) when Steward bought it. */
    providerSid: text('provider_sid'),
    status: text('status', { enum: ['active', 'released'] }).notNull().default('active'),
    createdAt: createdAt(),
    releasedAt: ts('released_at'),
  },
  (t) => [uniqueIndex('phone_lines_number_active').on(t.number).where(sql`${t.status} = 'active'`), index('phone_lines_assistant').on(t.assistantId)],
);

export type PhoneLineRow = typeof phoneLines.$inferSelect;

/** What became of a received text. */
export const inboundTextStatuses = ['chat', 'attached', 'unmatched', 'opted_out', 'opted_in', 'help', 'approval'] as const;

/**
 * One text received on an assistant's number, as its provider sent it (the signed webhook), with
 * where the channel layer put it. Unique per provider message id: a webhook delivered again is
 * answered and changes nothing.
 */
export const inboundTexts = pgTable(
  'inbound_texts',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    assistantId: text('assistant_id').notNull(),
    provider: text('provider', { enum: textProviders }).notNull(),
    channel: text('channel', { enum: textChannels }).notNull(),
    /** Twilio's MessageSid, Sendblue's message_handle. */
    providerMessageId: text('provider_message_id').notNull(),
    /** E.164 of the person who wrote, and of the assistant's number it reached. */
    fromNumber: text('from_number').notNull(),
    toNumber: text('to_number').notNull(),
    /** A group conversation's provider id (iMessage groups), and who else is in it. */
    groupKey: text('group_key'),
    participants: jsonb('participants').$type<string[]>().notNull().default([]),
    body: text('body').notNull().default(''),
    media: jsonb('media').$type<Array<{ contentType: string; fileId: string | null; refused: string | null }>>().notNull().default([]),
    /** STOP, START or HELP (an opt-out keyword), when the text was one. */
    keyword: text('keyword', { enum: ['stop', 'start', 'help'] }),
    status: text('status', { enum: inboundTextStatuses }).notNull().default('unmatched'),
    reason: text('reason'),
    chatId: text('chat_id'),
    taskId: text('task_id'),
    activityId: text('activity_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('inbound_texts_provider_id').on(t.provider, t.providerMessageId),
    // The WhatsApp window: the person's last message to this number.
    index('inbound_texts_window').on(t.toNumber, t.fromNumber, t.channel, t.createdAt),
  ],
);

export type InboundTextRow = typeof inboundTexts.$inferSelect;

export const outboundTextStatuses = ['sending', 'accepted', 'queued', 'sent', 'delivered', 'read', 'undelivered', 'failed', 'unknown'] as const;
export type OutboundTextStatus = (typeof outboundTextStatuses)[number];

/**
 * One text Steward sends. The row is the intent, written before the provider is called and keyed
 * by what is being sent (a dispatch version, a reply, a notice, a code): a second attempt finds it
 * and never sends again. The provider's id is written after; status callbacks find the row by the
 * `ref` their URL carries (even when the provider's answer to the send was lost). The text itself
 * is not kept here (a dispatch's is in its version, a reply's in its chat, a code never).
 */
export const outboundTexts = pgTable(
  'outbound_texts',
  {
    id: idColumn(),
    accountId: text('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: textProviders }).notNull(),
    channel: text('channel', { enum: textChannels }).notNull(),
    purpose: text('purpose', { enum: ['dispatch', 'reply', 'notice', 'code', 'approval'] }).notNull(),
    intentKey: text('intent_key').notNull(),
    fromNumber: text('from_number').notNull(),
    toNumber: text('to_number').notNull(),
    providerMessageId: text('provider_message_id'),
    status: text('status', { enum: outboundTextStatuses }).notNull().default('sending'),
    errorCode: text('error_code'),
    reason: text('reason'),
    /** What it belongs to: the dispatch, or the caller's own id of the message (a reply's or a notice's Message-ID). */
    dispatchId: text('dispatch_id'),
    callerRef: text('caller_ref'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('outbound_texts_intent').on(t.intentKey),
    index('outbound_texts_provider_id').on(t.providerMessageId),
    index('outbound_texts_dispatch').on(t.dispatchId),
  ],
);

export type OutboundTextRow = typeof outboundTexts.$inferSelect;

/**
 * A person who texted STOP to one of the assistants' numbers: nothing is sent from that number to
 * them until they text START. Kept per sending number, as carriers and Twilio keep it.
 */
export const textOptOuts = pgTable(
  'text_opt_outs',
  {
    senderNumber: text('sender_number').notNull(),
    counterpart: text('counterpart').notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: textChannels }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.senderNumber, t.counterpart] })],
);

/**
 * A short code that approves or rejects one version of a cart by text ("YES 4821"): bound to the
 * cart's contentHash when it was sent, accepted once, only from the owner's verified number, only
 * while the cart still waits with that content. Only an HMAC of the code is kept.
 */
export const textApprovalCodes = pgTable(
  'text_approval_codes',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    cartId: text('cart_id').notNull(),
    contentHash: text('content_hash').notNull(),
    codeHash: text('code_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('text_approval_codes_version').on(t.cartId, t.contentHash), index('text_approval_codes_user').on(t.userId, t.codeHash)],
);

export type TextApprovalCodeRow = typeof textApprovalCodes.$inferSelect;
