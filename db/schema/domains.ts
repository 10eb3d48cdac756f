import { sql } from 'drizzle-orm';
import { boolean, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { organizations } from './organizations';

export const organizationDomains = pgTable(
  'organization_domains',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    source: text('source', { enum: ['manual', 'sso'] }).notNull().default('manual'),
    verified: boolean('verified').notNull().default(false),
    autoJoin: boolean('auto_join').notNull().default(false),
    txtRecordValue: text('txt_record_value').notNull(),
    verifiedAt: ts('verified_at'),
    lastCheckedAt: ts('last_checked_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // Organizations may both claim a domain while neither has proved it (a claim alone must not
  // lock the real owner out); only one may hold it verified. One claim per organization.
  (t) => [
    uniqueIndex('organization_domains_verified_domain').on(t.accountId, t.domain).where(sql`${t.verified}`),
    uniqueIndex('organization_domains_org_domain').on(t.organizationId, t.domain),
  ],
);

export type OrganizationDomainRow = typeof organizationDomains.$inferSelect;
