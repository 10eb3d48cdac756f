import { and, eq, sql } from 'drizzle-orm';
import { workspaceHolders } from '@/db/schema';
import { GONE_AFTER_MS, type ThisNode } from './this-node';

/*
 * Which process holds a user's browser (workspace_holders). A process claims the row before it
 * starts the browser and lets it go when the browser stops; a holder whose node is gone
 * (this-node.ts) is taken over by the next process that needs the browser, in one statement, so
 * two processes never both start it.
 */

export type Holder = { nodeId: string; url: string | null; gone: boolean };

/** Gone: no row for the node, not refreshed for GONE_AFTER_MS, or restarted since (a later process at its URL). */
const nodeGone = (nodeId: ReturnType<typeof sql>) => sql`NOT EXISTS (
  SELECT 1 FROM steward_nodes n
  WHERE n.id = ${nodeId}
    AND n.seen_at > now() - make_interval(secs => ${GONE_AFTER_MS / 1000})
    AND NOT EXISTS (SELECT 1 FROM steward_nodes m WHERE m.url = n.url AND m.started_at > n.started_at))`;

/** The user's holder now, with its URL and whether it is gone; null when nobody holds the browser. */
export async function findHolder(n: ThisNode, accountId: string, userId: string): Promise<Holder | null> {
  const r = await n.db.execute<{ node_id: string; url: string | null; gone: boolean }>(sql`
    SELECT h.node_id, (SELECT url FROM steward_nodes WHERE id = h.node_id) AS url, ${nodeGone(sql`h.node_id`)} AS gone
    FROM workspace_holders h WHERE h.account_id = ${accountId} AND h.user_id = ${userId}`);
  const row = r.rows[0];
  return row ? { nodeId: row.node_id, url: row.url, gone: row.gone } : null;
}

/**
 * Makes this process the holder: when nobody holds the browser, when this process already does,
 * or when the holder is gone (checked again inside the statement). False when another live
 * process holds it (or took it meanwhile). `from` tells the caller whose browser it took over.
 */
export async function claimHolder(n: ThisNode, accountId: string, userId: string): Promise<{ claimed: boolean; from: string | null }> {
  const r = await n.db.execute<{ node_id: string; previous: string | null }>(sql`
    WITH previous AS (SELECT node_id FROM workspace_holders WHERE account_id = ${accountId} AND user_id = ${userId})
    INSERT INTO workspace_holders AS h (account_id, user_id, node_id, since) VALUES (${accountId}, ${userId}, ${n.id}, now())
    ON CONFLICT (account_id, user_id) DO UPDATE SET node_id = excluded.node_id, since = now()
      WHERE h.node_id = excluded.node_id OR ${nodeGone(sql`h.node_id`)}
    RETURNING h.node_id, (SELECT node_id FROM previous) AS previous`);
  const row = r.rows[0];
  if (!row) return { claimed: false, from: null };
  return { claimed: true, from: row.previous && row.previous !== n.id ? row.previous : null };
}

/** The browser stopped here: the row goes, if it is still this process's. */
export async function releaseHolder(n: ThisNode, accountId: string, userId: string): Promise<void> {
  await n.db
    .delete(workspaceHolders)
    .where(and(eq(workspaceHolders.accountId, accountId), eq(workspaceHolders.userId, userId), eq(workspaceHolders.nodeId, n.id)));
}

/** The users whose browsers this process holds according to the table. */
export async function heldHere(n: ThisNode): Promise<Set<string>> {
  const rows = await n.db.select({ accountId: workspaceHolders.accountId, userId: workspaceHolders.userId }).from(workspaceHolders).where(eq(workspaceHolders.nodeId, n.id));
  return new Set(rows.map((r) => `${r.accountId}/${r.userId}`));
}
