import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

type Json = Record<string, unknown>;

type SearchedColumns = Record<'name' | 'preferredName' | 'email' | 'title' | 'company' | 'emails', AnyPgColumn>;

/**
 * Every field the list's `search` and `q` look in, as one text: the trigram index holds it, so
 * a term found in any one field is found here first, and the per-field test only rechecks.
 */
export const contactSearchText = (t: SearchedColumns) =>
  sql`(coalesce(${t.name}, '') || ' ' || coalesce(${t.preferredName}, '') || ' ' || ${t.email} || ' ' || coalesce(${t.title}, '') || ' ' || coalesce(${t.company}->>'name', '') || ' ' || ${t.emails}::text)`;

/** A person a user knows. Owned by one user; rarely-filtered parts are JSON. */
export const contacts = pgTable(
  'contacts',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name'),
    preferredName: text('preferred_name'),
    /** Primary address, lower-cased. */
    email: text('email').notNull(),
    emails: jsonb('emails').$type<Json[]>().notNull().default([]),
    phones: jsonb('phones').$type<Json[]>().notNull().default([]),
    iMessageCapable: boolean('imessage_capable'),
    company: jsonb('company').$type<Json | null>(),
    title: text('title'),
    timezone: text('timezone'),
    tzOffset: text('tz_offset'),
    photoUrl: text('photo_url'),
    website: text('website'),
    bookingLink: text('booking_link'),
    social: jsonb('social').$type<Json>().notNull().default({}),
    address: jsonb('address').$type<Json>().notNull().default({}),
    enrichedAt: ts('enriched_at'),
    lastContactedAt: ts('last_contacted_at'),
    source: jsonb('source').$type<Json | null>(),
    externalIds: jsonb('external_ids').$type<Json[]>().notNull().default([]),
    properties: jsonb('properties').$type<Json>().notNull().default({}),
    priority: integer('priority').notNull().default(0),
    inheritCompanyPriority: boolean('inherit_company_priority').notNull().default(false),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    introducedBy: text('introduced_by'),
    scope: text('scope', { enum: ['user', 'team'] }).notNull().default('user'),
    teamId: text('team_id'),
    status: text('status').notNull().default('active'),
    consumerEmail: text('consumer_email'),
    assistant: jsonb('assistant').$type<Json | null>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // The list reads one user's contacts newest first (keyset on created_at, id), by status when
  // filtered by it; tags through GIN, search and q through trigrams (pg_trgm).
  (t) => [
    index('contacts_user_list').on(t.userId, t.createdAt, t.id),
    index('contacts_user_status_list').on(t.userId, t.status, t.createdAt, t.id),
    // Team-scoped contacts by team, newest first: what a team's members see beyond their own.
    index('contacts_team_list').on(t.teamId, t.createdAt, t.id).where(sql`${t.scope} = 'team'`),
    index('contacts_tags').using('gin', t.tags),
    index('contacts_search_trgm').using('gin', sql`${contactSearchText(t)} gin_trgm_ops`),
  ],
);

/** Every address of every contact, so "an address already belongs to one of the user's contacts" is one lookup and a constraint. */
export const contactAddresses = pgTable(
  'contact_addresses',
  {
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    address: text('address').notNull(),
  },
  (t) => [uniqueIndex('contact_addresses_user_address').on(t.userId, t.address), index('contact_addresses_contact').on(t.contactId)],
);

export const contactRelationships = pgTable(
  'contact_relationships',
  {
    id: idColumn(),
    userId: text('user_id').notNull(),
    fromContactId: text('from_contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    toContactId: text('to_contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('contact_relationships_from').on(t.fromContactId), index('contact_relationships_to').on(t.toContactId)],
);

export type ContactRow = typeof contacts.$inferSelect;
