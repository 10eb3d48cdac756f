import { randomUUID } from 'node:crypto';
import { and, eq, lt, ne, or, sql } from 'drizzle-orm';
import { sharedDatabase, type Db } from '@/db/client';
import { stewardNodes, workspaceHolders } from '@/db/schema';
import { nodeLinkConfig, type NodeLink } from '@/server/http/node-link';
import { logger } from '@/server/logger';

/*
 * This process as one node of a deployment (spec document 6, Many machines). With
 * STEWARD_NODE_URL set, the process writes its row in steward_nodes when it starts (a fresh id
 * each start, so a restarted process never inherits what its earlier life held), refreshes it
 * every HEARTBEAT_MS, and removes it when it stops. Without STEWARD_NODE_URL there is no node:
 * the workspace runs in this process alone, as it always did.
 *
 * A node is gone when its row is missing, has not been refreshed for GONE_AFTER_MS, or a process
 * started later at the same URL (its restart). Another process that finds a node unreachable
 * (connection refused) removes its row at once: kill -9 is noticed on the next request, not
 * after the heartbeat lapses.
 */

export const HEARTBEAT_MS = 5_000;
export const GONE_AFTER_MS = 30_000;

export type ThisNode = { id: string; url: string; link: NodeLink; db: Db };

let node: ThisNode | null | undefined;
let heartbeat: NodeJS.Timeout | undefined;

/**
 * This process's node, started on first use (null without STEWARD_NODE_URL). Throws when
 * STEWARD_NODE_URL is set without a usable STEWARD_NODE_SECRET (node-link.ts).
 */
export async function thisNode(): Promise<ThisNode | null> {
  if (node !== undefined) return node;
  const link = nodeLinkConfig();
  if (!link) return (node = null);
  const n: ThisNode = { id: randomUUID(), url: link.url, link, db: sharedDatabase().db };
  await n.db.transaction(async (tx) => {
    // An earlier life of this process (same URL) is gone from now on; so are rows nobody refreshed for a day.
    await tx.delete(stewardNodes).where(or(eq(stewardNodes.url, n.url), lt(stewardNodes.seenAt, sql`now() - interval '1 day'`)));
    await tx.insert(stewardNodes).values({ id: n.id, url: n.url, startedAt: sql`clock_timestamp()`, seenAt: sql`now()` });
  });
  node = n;
  heartbeat = setInterval(() => void beat(n), HEARTBEAT_MS);
  heartbeat.unref();
  logger.info({ node: n.id, url: n.url }, 'workspace node started');
  return n;
}

/** Refreshes the row (written again if another process removed it). */
async function beat(n: ThisNode) {
  try {
    const refreshed = await n.db.update(stewardNodes).set({ seenAt: sql`now()` }).where(eq(stewardNodes.id, n.id)).returning({ id: stewardNodes.id });
    if (!refreshed.length) {
      logger.warn({ node: n.id }, 'workspace node: another process took this one for gone; registering again');
      await n.db.insert(stewardNodes).values({ id: n.id, url: n.url, startedAt: sql`clock_timestamp()`, seenAt: sql`now()` }).onConflictDoNothing();
    }
  } catch (err) {
    logger.warn({ err }, 'workspace node: heartbeat failed');
  }
}

/** On shutdown, after the browsers stopped: the row goes, and what it still held is free at once. */
export async function stopThisNode(): Promise<void> {
  clearInterval(heartbeat);
  const n = node;
  node = undefined;
  if (!n) return;
  await n.db.delete(workspaceHolders).where(eq(workspaceHolders.nodeId, n.id)).catch(() => undefined);
  await n.db.delete(stewardNodes).where(eq(stewardNodes.id, n.id)).catch(() => undefined);
}

/** Marks another node gone (it refused a connection): its holders become free for whoever needs them next. */
export async function markGone(n: ThisNode, nodeId: string): Promise<void> {
  if (nodeId === n.id) return;
  await n.db.delete(stewardNodes).where(and(eq(stewardNodes.id, nodeId), ne(stewardNodes.id, n.id)));
}
