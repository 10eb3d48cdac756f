import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, updatedAt } from './columns';

export const organizations = pgTable(
  'organizations',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    generalInfo: text('general_info').notNull().default(''),
    defaultTeamId: text('default_team_id'),
    defaultAssistantId: text('default_assistant_id'),
    /** Default model tiers of chats and tasks its users create (null: the account's default). */
    chatModelTier: text('chat_model_tier', { enum: ['low', 'medium', 'high', 'ultra'] }),
    taskModelTier: text('task_model_tier', { enum: ['low', 'medium', 'high', 'ultra'] }),
    /** SSO configuration as merged from PUT /sso; the IdP certificate inside is never returned. */
    sso: jsonb('sso').$type<Record<string, unknown> | null>(),
    /** SCIM settings; the token is kept only as a hash. */
    scim: jsonb('scim').$type<Record<string, unknown> | null>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('organizations_account_created').on(t.accountId, t.createdAt)],
);

export type OrganizationRow = typeof organizations.$inferSelect;
