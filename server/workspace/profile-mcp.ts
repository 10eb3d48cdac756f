import { sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';

/*
 * Which MCP skills the user's work actually used (spec document 2: topMcpSlugs of the profile,
 * activeMcpSlugs of a snapshot): read from the tool activities of the user's task runs, whose
 * MCP tools are named `mcp__<skill>__<tool>` (workflows/mcp/names.ts). The skill's name is the slug.
 */

type Owner = { accountId: string; userId: string };

/** The user's most used MCP skills since `since`, most calls first (ties by name). */
export async function topMcpSlugs(db: Tx, o: Owner, since: Date, limit = 5): Promise<string[]> {
  const { rows } = await db.execute<{ slug: string }>(sql`
    SELECT split_part(a.tool_name, '__', 2) AS slug, count(*) AS calls
    FROM task_activities a JOIN tasks t ON t.id = a.task_id
    WHERE t.account_id = ${o.accountId} AND t.user_id = ${o.userId}
      AND a.kind = 'tool' AND a.tool_name LIKE 'mcp\\_\\_%' AND a.created_at >= ${since.toISOString()}::timestamptz
    GROUP BY 1 HAVING split_part(a.tool_name, '__', 2) <> ''
    ORDER BY count(*) DESC, 1 ASC
    LIMIT ${limit}`);
  return rows.map((r) => r.slug);
}

/**
 * For each moment in `times` (oldest first), the MCP skills called in the `windowMs` before it:
 * one query over the whole span, split in memory.
 */
export async function mcpSlugsByWindow(db: Tx, o: Owner, times: Date[], windowMs: number): Promise<string[][]> {
  if (!times.length) return [];
  const from = new Date(Math.min(...times.map((t) => t.getTime())) - windowMs);
  const to = new Date(Math.max(...times.map((t) => t.getTime())));
  const { rows } = await db.execute<{ slug: string; at: string | Date }>(sql`
    SELECT DISTINCT split_part(a.tool_name, '__', 2) AS slug, a.created_at AS at
    FROM task_activities a JOIN tasks t ON t.id = a.task_id
    WHERE t.account_id = ${o.accountId} AND t.user_id = ${o.userId}
      AND a.kind = 'tool' AND a.tool_name LIKE 'mcp\\_\\_%'
      AND a.created_at > ${from.toISOString()}::timestamptz AND a.created_at <= ${to.toISOString()}::timestamptz`);
  const calls = rows.filter((r) => r.slug).map((r) => ({ slug: r.slug, at: new Date(r.at).getTime() }));
  return times.map((t) => {
    const end = t.getTime();
    return [...new Set(calls.filter((c) => c.at > end - windowMs && c.at <= end).map((c) => c.slug))].sort();
  });
}
