import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { updatedAt } from './columns';
import { users } from './users';

/**
 * What an identity provider keeps about a user beyond SCIM's core User: the enterprise extension
 * (RFC 7643 §4.3, `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User`), which Entra ID
 * sends on every provisioning call. Stored as it is shown; read only by SCIM (server/scim).
 */
export type ScimEnterprise = {
  employeeNumber?: string | null;
  costCenter?: string | null;
  organization?: string | null;
  division?: string | null;
  department?: string | null;
  manager?: { value: string; displayName?: string | null } | null;
};

export const scimUserExtensions = pgTable('scim_user_extensions', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  accountId: text('account_id').notNull(),
  enterprise: jsonb('enterprise').$type<ScimEnterprise>().notNull().default({}),
  updatedAt: updatedAt(),
});

export type ScimUserExtensionRow = typeof scimUserExtensions.$inferSelect;
