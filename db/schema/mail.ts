import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, idColumn } from './columns';

/**
 * Every message Steward sends or would send. `sent`: an SMTP server accepted it;
 * `recorded`: no SMTP server is configured, so it was only written down (never reported as delivered);
 * `failed`: the server refused it.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: idColumn(),
    accountId: text('account_id'),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    status: text('status', { enum: ['sent', 'recorded', 'failed'] }).notNull(),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [index('mail_outbox_to').on(t.to, t.createdAt)],
);
