import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { carts } from './carts';
import { createdAt, idColumn, ts } from './columns';
import { users } from './users';

/**
 * The one-time "Reject" link of a cart's approval email (spec document 2, "Reject link in an
 * approval message"). One per cart: the email is sent once, when the cart reaches
 * pending_approval. Only the SHA-256 of the link's random token is kept, so a database dump
 * holds nothing that rejects a cart. The link is bound to the content it was mailed about
 * (contentHash at send time), expires, and works once.
 */
export const cartRejectLinks = pgTable(
  'cart_reject_links',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    cartId: text('cart_id')
      .notNull()
      .references(() => carts.id, { onDelete: 'cascade' }),
    /** The cart's owner, to whom the email went and in whose name the rejection is recorded. */
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Lower-case hex SHA-256 of the token in the link. */
    tokenHash: text('token_hash').notNull(),
    /** The cart's contentHash when the email was sent: the link rejects that content only. */
    contentHash: text('content_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** While a notification is being sent: another notifier waits until then before trying again. */
    sendingUntil: ts('sending_until'),
    /** When the email went out (the mail adapter accepted or recorded it); null: not yet. */
    mailedAt: ts('mailed_at'),
    /** When the link was used; a used link rejects nothing more. */
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('cart_reject_links_cart').on(t.cartId),
    uniqueIndex('cart_reject_links_token').on(t.tokenHash),
    index('cart_reject_links_expiry').on(t.expiresAt),
  ],
);

export type CartRejectLinkRow = typeof cartRejectLinks.$inferSelect;
