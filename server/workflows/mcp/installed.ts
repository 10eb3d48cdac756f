import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import type { McpAuthType, McpTransport } from './connect';
import type { McpServerInfo } from './probe';
import { skillsTable, type SkillsTable } from './skills-table';

/** An installed MCP skill as the runtime needs it: how to reach the server, and the tools it listed when installed. */
export type McpSkill = {
  id: string;
  accountId: string;
  ownerUserId: string | null;
  name: string;
  title: string | null;
  url: string;
  transport: McpTransport;
  authType: McpAuthType;
  secretSealed: string | null;
  info: McpServerInfo | null;
};

// A function, not a constant: the table is read when a query is built, never at import time.
const columns = (skills: SkillsTable) => ({
  id: skills.id,
  accountId: skills.accountId,
  ownerUserId: skills.ownerUserId,
  name: skills.name,
  title: skills.title,
  url: skills.mcpServerUrl,
  transport: skills.mcpTransport,
  authType: skills.mcpAuthType,
  secretSealed: skills.mcpSecretSealed,
  info: skills.mcpServerInfo,
});

function toSkill(r: Record<keyof ReturnType<typeof columns>, unknown>): McpSkill | null {
  if (typeof r.url !== 'string' || !r.url) return null;
  return {
    id: r.id as string,
    accountId: r.accountId as string,
    ownerUserId: (r.ownerUserId as string | null) ?? null,
    name: r.name as string,
    title: (r.title as string | null) ?? null,
    url: r.url,
    transport: ((r.transport as McpTransport | null) ?? 'streamable-http') as McpTransport,
    authType: ((r.authType as McpAuthType | null) ?? 'none') as McpAuthType,
    secretSealed: (r.secretSealed as string | null) ?? null,
    info: (r.info as McpServerInfo | null) ?? null,
  };
}

/**
 * The MCP skills a user's runs get (spec document 4, Skills wire details): those installed for
 * that user and the account's app-wide ones; the user's own first, so a tool name both would
 * give belongs to the user's skill. Disabled skills are left out.
 */
export async function installedMcpSkills(db: Tx, user: { accountId: string; userId: string }): Promise<McpSkill[]> {
  const skills = skillsTable();
  if (!skills) return [];
  const rows = await db
    .select(columns(skills))
    .from(skills)
    .where(
      and(
        eq(skills.accountId, user.accountId),
        eq(skills.kind, 'mcp'),
        // A disabled skill offers nothing (a table without the switch has every skill on).
        skills.enabled ? eq(skills.enabled, true) : undefined,
        or(eq(skills.ownerUserId, user.userId), isNull(skills.ownerUserId)),
      ),
    )
    .orderBy(sql`${skills.ownerUserId} IS NULL`, asc(skills.createdAt), asc(skills.id));
  return rows.map(toSkill).filter((s): s is McpSkill => s !== null);
}

/** One MCP skill the user may use (their own or app-wide), or null: another user's skill is never reached. */
export async function installedMcpSkill(db: Tx, user: { accountId: string; userId: string }, skillId: string): Promise<McpSkill | null> {
  const skills = skillsTable();
  if (!skills) return null;
  const [row] = await db
    .select(columns(skills))
    .from(skills)
    .where(and(eq(skills.id, skillId), eq(skills.accountId, user.accountId), eq(skills.kind, 'mcp'), or(eq(skills.ownerUserId, user.userId), isNull(skills.ownerUserId))));
  return row ? toSkill(row) : null;
}
