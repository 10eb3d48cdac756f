import { and, eq, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Tx } from '@/db/client';
import * as schema from '@/db/schema';

/** The columns of the skills table (db/schema/skills.ts, the skills API's) this folder reads and writes. */
export type SkillsTable = PgTable & {
  id: AnyPgColumn;
  accountId: AnyPgColumn;
  ownerUserId: AnyPgColumn;
  kind: AnyPgColumn;
  name: AnyPgColumn;
  title: AnyPgColumn;
  enabled: AnyPgColumn;
  createdAt: AnyPgColumn;
  mcpServerUrl: AnyPgColumn;
  mcpTransport: AnyPgColumn;
  mcpAuthType: AnyPgColumn;
  mcpSecretSealed: AnyPgColumn;
  mcpServerInfo: AnyPgColumn;
};

/**
 * The skills table, found through the schema namespace when it is used rather than imported by
 * name: this folder then loads (and the runtime starts) whether or not the table is part of the
 * schema yet; with no table there is no installed MCP skill.
 */
export function skillsTable(): SkillsTable | null {
  return ((schema as Record<string, unknown>).skills as SkillsTable | undefined) ?? null;
}

/** Changes MCP columns of one skill of the account (the sealed secret, the stored server info). */
export async function updateSkill(db: Tx, skill: { id: string; accountId: string }, set: { mcpSecretSealed?: string; mcpServerInfo?: unknown }): Promise<void> {
  const t = skillsTable();
  if (!t) return;
  const where: SQL | undefined = and(eq(t.id, skill.id), eq(t.accountId, skill.accountId));
  // The table is typed by the columns above only, so the values are not checked against it here.
  await db
    .update(t)
    .set(set as never)
    .where(where);
}
