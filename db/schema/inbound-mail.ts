import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, updatedAt } from './columns';
import { tasks } from './tasks';

/**
 * What became of a message that reached an assistant's address:
 * - `attached`: a reply to a message Steward sent, from a person the task waits on: it is the
 *   task's `contact` activity (activityId);
 * - `chat`: anything else to a user's own assistant: the owner's email chat with the sender
 *   (server/chats/email.ts); `activityId` is the chat message it became;
 * - `unmatched`: anything else (mail to a shared assistant): kept, never dropped;
 * - `quarantined`: DMARC failed (the From address is not the sender's): kept and flagged, never
 *   attached to a task nor handed on as if it came from that address.
 * - `unverified`: nothing proves the From address (no DMARC pass, no SPF or DKIM pass aligned with
 *   its domain): kept as from an unknown sender, never as the words of the person it names.
 */
export const inboundMessageStatuses = ['attached', 'chat', 'unmatched', 'quarantined', 'unverified'] as const;
export type InboundMessageStatus = (typeof inboundMessageStatuses)[number];

/** The results mailauth reports (spec: a `none` or `temperror` verdict is kept like any other). */
export type MailAuthResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror' | 'policy';

/** The full SPF/DKIM/DMARC verdict kept with a message (the three results are also columns). */
export type MailAuthVerdict = {
  spf: { result: MailAuthResult; domain: string | null };
  dkim: { result: MailAuthResult; signatures: Array<{ domain: string; selector: string | null; result: MailAuthResult; aligned: boolean }> };
  dmarc: { result: MailAuthResult; domain: string | null; policy: string | null };
  /** The Authentication-Results header mailauth wrote for the message. */
  header: string;
};

export type InboundAttachment = { filename: string | null; contentType: string; size: number };

/**
 * The spam and virus checks of one message (spec 5, Inbound mail checks: spamd, clamd): `off` when
 * the deployment configured no checker, `error` when it could not answer (the mail is kept).
 */
export type InboundChecks = {
  spam: { status: 'off' | 'clean' | 'spam' | 'error'; score?: number; threshold?: number; detail?: string };
  virus: { status: 'off' | 'clean' | 'infected' | 'error'; signature?: string; detail?: string };
};

/**
 * Mail received by the inbound SMTP listener (spec document 4, Inbound email): one row per
 * message and receiving assistant, written before the SMTP server answers 250, so nothing it
 * accepted is lost. Bodies are kept as text (and HTML); attachments by name, type and size only.
 */
export const inboundMessages = pgTable(
  'inbound_messages',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The assistant whose address received it (not a foreign key, as on tasks: the row outlives it). */
    assistantId: text('assistant_id').notNull(),
    /** The address it was delivered to (RCPT TO), lower-cased. */
    recipient: text('recipient').notNull(),
    status: text('status', { enum: inboundMessageStatuses }).notNull().default('unmatched'),
    /** Why it is unmatched or quarantined (no_reference, unknown_reference, sender_not_awaited, dmarc_fail...). */
    reason: text('reason'),
    /** The task it replies to (set once the reference and the task's assistant check out), attached or not. */
    taskId: text('task_id').references(() => tasks.id, { onDelete: 'set null' }),
    /** The task activity it became (status attached). */
    activityId: text('activity_id'),
    /** Header values: the Message-ID (with its angle brackets), In-Reply-To and References. */
    messageId: text('message_id'),
    inReplyTo: jsonb('in_reply_to').$type<string[]>().notNull().default([]),
    references: jsonb('references').$type<string[]>().notNull().default([]),
    /** The From header's address (lower-cased) and display name. */
    fromAddress: text('from_address').notNull(),
    fromName: text('from_name'),
    toAddresses: jsonb('to_addresses').$type<string[]>().notNull().default([]),
    ccAddresses: jsonb('cc_addresses').$type<string[]>().notNull().default([]),
    subject: text('subject').notNull().default(''),
    textBody: text('text_body').notNull().default(''),
    htmlBody: text('html_body'),
    attachments: jsonb('attachments').$type<InboundAttachment[]>().notNull().default([]),
    /** The SMTP envelope and client: MAIL FROM (null for a bounce), the client's IP and HELO name. */
    mailFrom: text('mail_from'),
    remoteIp: text('remote_ip').notNull(),
    helo: text('helo'),
    sizeBytes: integer('size_bytes').notNull(),
    spf: text('spf').$type<MailAuthResult>().notNull(),
    dkim: text('dkim').$type<MailAuthResult>().notNull(),
    dmarc: text('dmarc').$type<MailAuthResult>().notNull(),
    auth: jsonb('auth').$type<MailAuthVerdict>().notNull(),
    /** The From address is proven: DMARC passed, or SPF or DKIM passed aligned with its domain. */
    senderVerified: boolean('sender_verified').notNull().default(false),
    checks: jsonb('checks').$type<InboundChecks>(),
    /** The Auto-Submitted header (RFC 3834) when present and not `no`: Steward never answers such mail. */
    autoSubmitted: text('auto_submitted'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A message the sender's server delivers twice (our 250 got lost) is kept, and acted on, once.
    uniqueIndex('inbound_messages_assistant_message_id').on(t.assistantId, t.messageId).where(sql`${t.messageId} IS NOT NULL`),
    // What the assistant's email chats pick up: one assistant's messages by status, newest first.
    index('inbound_messages_assistant_status').on(t.assistantId, t.status, t.createdAt.desc()),
    index('inbound_messages_task').on(t.taskId),
  ],
);

export type InboundMessageRow = typeof inboundMessages.$inferSelect;
