import { and, asc, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { workspaceSnapshots, workspaceUsage, type WorkspaceSnapshotRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { SNAPSHOT_EVERY_MS, SNAPSHOT_KEEP_DAYS } from './browser/config';
import type { WorkspaceSample } from './browser/user-workspace';
import { mcpSlugsByWindow } from './profile-mcp';
import { withSandbox } from './snapshots-sample';

/*
 * The usage record of a user's workspace: one row saying it has run (and for how long), and
 * snapshots of measured usage, at most one per 5 minutes, kept 30 days (spec document 2,
 * Limits). The browser's manager and the shell's write them while either runs; whichever writes,
 * a snapshot holds the whole workspace: the browser's figures plus the sandbox's
 * (snapshots-sample.ts). The endpoints read them.
 */

type Owner = { accountId: string; userId: string };
const KEEP_MS = SNAPSHOT_KEEP_DAYS * 86_400_000;

/** A start: the record exists from now on (so `profile` is no longer null). */
export async function recordStart(db: Tx, o: Owner, at: Date) {
  await db
    .insert(workspaceUsage)
    .values({ ...o, firstStartedAt: at, lastStartedAt: at, lastActiveAt: at })
    .onConflictDoUpdate({ target: [workspaceUsage.accountId, workspaceUsage.userId], set: { lastStartedAt: at, lastActiveAt: at } });
}

/** Running time since the last call, and the last activity. */
export async function recordActivity(db: Tx, o: Owner, addSeconds: number, lastActiveAt: Date) {
  await db
    .update(workspaceUsage)
    .set({
      activeSeconds: sql`${workspaceUsage.activeSeconds} + ${Math.max(0, Math.round(addSeconds))}`,
      lastActiveAt: sql`greatest(${workspaceUsage.lastActiveAt}, ${lastActiveAt.toISOString()}::timestamptz)`,
    })
    .where(and(eq(workspaceUsage.accountId, o.accountId), eq(workspaceUsage.userId, o.userId)));
}

/**
 * Keeps `sample` unless the user already has a snapshot from the last 5 minutes (several
 * processes or a restart may measure the same user), and drops the user's snapshots past 30 days.
 * True when it was kept.
 */
export async function recordSnapshot(db: Tx, o: Owner, browser: WorkspaceSample): Promise<boolean> {
  const s = await withSandbox(o, browser);
  const since = new Date(s.takenAt.getTime() - SNAPSHOT_EVERY_MS + 1000);
  const inserted = await db.execute(sql`
    insert into ${workspaceSnapshots} (id, account_id, user_id, taken_at, memory_used_bytes, memory_total_bytes, disk_used_bytes, disk_quota_bytes, cpu_load_avg, uptime_seconds)
    select ${newId()}, ${o.accountId}, ${o.userId}, ${s.takenAt.toISOString()}::timestamptz,
           ${s.memoryUsedBytes}, ${s.memoryTotalBytes}, ${s.diskUsedBytes}, ${s.diskQuotaBytes}, ${s.cpuLoadAvg}, ${s.uptimeSeconds}
    where not exists (
      select 1 from ${workspaceSnapshots}
      where account_id = ${o.accountId} and user_id = ${o.userId} and taken_at > ${since.toISOString()}::timestamptz
    )`);
  await db
    .delete(workspaceSnapshots)
    .where(and(eq(workspaceSnapshots.accountId, o.accountId), eq(workspaceSnapshots.userId, o.userId), lt(workspaceSnapshots.takenAt, new Date(s.takenAt.getTime() - KEEP_MS))));
  return (inserted.rowCount ?? 0) > 0;
}

/** Every user's snapshots past 30 days (the daily sweep; users whose browser no longer runs included). */
export async function pruneSnapshots(db: Tx, now: Date): Promise<number> {
  const gone = await db.delete(workspaceSnapshots).where(lt(workspaceSnapshots.takenAt, new Date(now.getTime() - KEEP_MS))).returning({ id: workspaceSnapshots.id });
  return gone.length;
}

export const presentSnapshot = (r: WorkspaceSnapshotRow, activeMcpSlugs: string[] = []) => ({
  timestamp: r.takenAt.toISOString(),
  memoryUsedBytes: r.memoryUsedBytes,
  memoryTotalBytes: r.memoryTotalBytes,
  diskUsedBytes: r.diskUsedBytes,
  diskQuotaBytes: r.diskQuotaBytes,
  cpuLoadAvg: r.cpuLoadAvg,
  activeMcpSlugs,
  containerUptime: r.uptimeSeconds,
});

/** The caller's newest `limit` snapshots of the last 30 days, oldest first. */
export async function listSnapshots(db: Tx, actor: Actor, limit: number, now = new Date()) {
  const user = requireUser(actor);
  const rows = await db
    .select()
    .from(workspaceSnapshots)
    .where(and(eq(workspaceSnapshots.accountId, actor.accountId), eq(workspaceSnapshots.userId, user.id), gte(workspaceSnapshots.takenAt, new Date(now.getTime() - KEEP_MS))))
    .orderBy(desc(workspaceSnapshots.takenAt))
    .limit(limit);
  const ordered = rows.reverse();
  // The MCP skills the user's runs called in each snapshot's 5 minutes.
  const slugs = await mcpSlugsByWindow(db, { accountId: actor.accountId, userId: user.id }, ordered.map((r) => r.takenAt), SNAPSHOT_EVERY_MS);
  return { ok: true as const, snapshots: ordered.map((r, i) => presentSnapshot(r, slugs[i])) };
}

/** Snapshots of the last `hours` for the profile's peaks and averages, oldest first. */
export async function recentSnapshots(db: Tx, o: Owner, since: Date) {
  return db
    .select()
    .from(workspaceSnapshots)
    .where(and(eq(workspaceSnapshots.accountId, o.accountId), eq(workspaceSnapshots.userId, o.userId), gte(workspaceSnapshots.takenAt, since)))
    .orderBy(asc(workspaceSnapshots.takenAt));
}
