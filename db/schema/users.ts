import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const userStatuses = ['active', 'inactive', 'suspended'] as const;
export const organizationRoles = ['admin', 'member', 'guest'] as const;

/**
 * The fields the users and members lists search, as one text the trigram index holds (first and
 * last name side by side, as `search` matches "Ada Lovelace"); the per-field test only rechecks.
 */
export const userSearchText = (t: Record<'email' | 'name' | 'firstName' | 'lastName', AnyPgColumn>) =>
  sql`(${t.email} || ' ' || coalesce(${t.name}, '') || ' ' || ${t.firstName} || ' ' || ${t.lastName})`;

export const users = pgTable(
  'users',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    externalId: text('external_id'),
    primaryAssistantId: text('primary_assistant_id'),
    name: text('name'),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    avatarUrl: text('avatar_url'),
    timezone: text('timezone').notNull().default('UTC'),
    /** When the user (or a caller for them) last saved a timezone: half of onboarding. */
    timezoneSetAt: ts('timezone_set_at'),
    locale: text('locale').notNull().default('en'),
    country: text('country'),
    city: text('city').notNull().default(''),
    organizationId: text('organization_id'),
    organizationRole: text('organization_role', { enum: organizationRoles }).notNull().default('member'),
    status: text('status', { enum: userStatuses }).notNull().default('active'),
    voice: jsonb('voice').$type<{ voiceId: string; provider: string } | null>(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    firstLoginAt: ts('first_login_at'),
    username: text('username'),
    preferences: jsonb('preferences').$type<Record<string, unknown>>().notNull().default({}),
    preferredProviders: jsonb('preferred_providers').$type<Record<string, unknown>>().notNull().default({}),
    preferredContactChannel: jsonb('preferred_contact_channel').$type<Record<string, unknown>>().notNull().default({}),
    assistantName: text('assistant_name'),
    appName: text('app_name'),
    /** Scheduling preferences as last saved by PUT; null until then. */
    schedulingPreferences: jsonb('scheduling_preferences').$type<Record<string, unknown>>(),
    workingHoursSetAt: ts('working_hours_set_at'),
    onboardedAt: ts('onboarded_at'),
    /**
     * Hosted-app sessions carry the version they were minted at and end once it moves on. Database
     * triggers (migration session_version_triggers) bump it when the user is blocked, loses a role
     * or their organization, is deprovisioned from a team, or their organization enforces SSO.
     */
    sessionVersion: integer('session_version').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_account_email').on(t.accountId, t.email),
    uniqueIndex('users_account_external_id').on(t.accountId, t.externalId),
    // Lists newest first (keyset on created_at, id): the account's, by status, an organization's.
    index('users_account_list').on(t.accountId, t.createdAt, t.id),
    index('users_account_status_list').on(t.accountId, t.status, t.createdAt, t.id),
    index('users_organization_list').on(t.organizationId, t.createdAt, t.id),
    index('users_search_trgm').using('gin', sql`${userSearchText(t)} gin_trgm_ops`),
  ],
);

export const identifierTypes = [
  'email',
  'phone',
  'google',
  'microsoft',
  'apple',
  'external_id',
  'employee_id',
  'custom',
] as const;

export const identifiers = pgTable(
  'identifiers',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type', { enum: identifierTypes }).notNull(),
    /** Emails lower-cased, phones in E.164. Unique in the account. */
    value: text('value').notNull(),
    verified: boolean('verified').notNull().default(false),
    primary: boolean('primary').notNull().default(false),
    label: text('label'),
    iMessageCapable: boolean('imessage_capable'),
    whatsAppCapable: boolean('whatsapp_capable'),
    preferredTextPlatform: text('preferred_text_platform'),
    messagingWindow: jsonb('messaging_window').$type<Record<string, string>>(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('identifiers_account_value').on(t.accountId, t.value), index('identifiers_user').on(t.userId)],
);

export type UserRow = typeof users.$inferSelect;
export type IdentifierRow = typeof identifiers.$inferSelect;
