import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

type Json = Record<string, unknown>;

export const assistantScopes = ['account', 'organization', 'team', 'user'] as const;

export const assistants = pgTable(
  'assistants',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    scope: text('scope', { enum: assistantScopes }).notNull().default('account'),
    organizationId: text('organization_id'),
    teamId: text('team_id'),
    userId: text('user_id'),
    name: text('name').notNull(),
    /** Null once deleted: the address is retired (retiredEmail) and free again. */
    email: text('email'),
    avatarUrl: text('avatar_url'),
    signature: text('signature'),
    signatureEditorMode: text('signature_editor_mode', { enum: ['visual', 'html'] }),
    personality: text('personality'),
    tagline: text('tagline'),
    backstory: text('backstory'),
    role: text('role'),
    displayPersonality: text('display_personality'),
    gender: text('gender', { enum: ['male', 'female', 'other'] }),
    pronouns: text('pronouns'),
    country: text('country'),
    signaturePhrases: jsonb('signature_phrases').$type<string[]>().notNull().default([]),
    writingStyle: jsonb('writing_style').$type<Json>().notNull().default({}),
    voice: jsonb('voice').$type<{ voiceId: string; provider: string } | null>(),
    status: text('status', { enum: ['active', 'inactive'] }).notNull().default('active'),
    talkToStrangers: boolean('talk_to_strangers').notNull().default(true),
    metadata: jsonb('metadata').$type<Json>().notNull().default({}),
    inboxPlatform: text('inbox_platform', { enum: ['google', 'outlook'] }),
    inboxAuthError: boolean('inbox_auth_error').notNull().default(false),
    channels: jsonb('channels').$type<Json>().notNull().default({}),
    appearanceDescription: text('appearance_description').notNull().default(''),
    tags: jsonb('tags').$type<Json>().notNull().default({}),
    deletedAt: ts('deleted_at'),
    retiredEmail: text('retired_email'),
    emailReleasedAt: ts('email_released_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // An assistant address is unique across the deployment, not per account: inbound mail to it
  // must reach exactly one account (server/messaging/inbound-mail.ts).
  (t) => [uniqueIndex('assistants_email').on(t.email).where(sql`${t.email} IS NOT NULL`), index('assistants_account').on(t.accountId)],
);

/** Which assistants a user has hired; the primary one is users.primary_assistant_id. */
export const rosterEntries = pgTable(
  'roster_entries',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    assistantId: text('assistant_id')
      .notNull()
      .references(() => assistants.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.assistantId] })],
);

export type AssistantRow = typeof assistants.$inferSelect;
