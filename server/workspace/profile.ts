import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { workspaceUsage } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { workspaceDirs } from './browser/launch';
import { peekWorkspace } from './browser/manager';
import { folderBytes } from './browser/process-tree';
import { recentSnapshots } from './snapshots';

const DAY_MS = 86_400_000;

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * GET /workspace/profile: measured numbers, never estimates. Peaks and averages cover the
 * last 24 hours of snapshots plus, while the browser runs, a measurement taken now. No limit
 * or quota is enforced on a browser process, so memoryLimitBytes and diskQuotaBytes are null.
 * Null until the user's workspace has run once.
 */
export async function workspaceProfile(db: Tx, actor: Actor, now = new Date()) {
  const user = requireUser(actor);
  const owner = { accountId: actor.accountId, userId: user.id };
  const [usage] = await db
    .select()
    .from(workspaceUsage)
    .where(and(eq(workspaceUsage.accountId, owner.accountId), eq(workspaceUsage.userId, owner.userId)));
  if (!usage) return { ok: true as const, profile: null };

  const ws = peekWorkspace(owner.accountId, owner.userId);
  const current = ws ? await ws.measure() : null;
  const recent = await recentSnapshots(db, owner, new Date(now.getTime() - DAY_MS));
  const memory = [...recent.map((s) => s.memoryUsedBytes), current?.memoryUsedBytes ?? null].filter((n): n is number => n !== null);
  const cpu = [...recent.map((s) => s.cpuLoadAvg), current?.cpuLoadAvg ?? null].filter((n): n is number => n !== null);
  const runningSeconds = ws ? (now.getTime() - ws.accountedAt) / 1000 : 0;
  const lastActiveAt = ws && ws.lastActiveAt > usage.lastActiveAt ? ws.lastActiveAt : usage.lastActiveAt;
  return {
    ok: true as const,
    profile: {
      lastActiveAt: lastActiveAt.toISOString(),
      updatedAt: now.toISOString(),
      peakMemoryBytes: memory.length ? Math.max(...memory) : null,
      avgMemoryBytes: memory.length ? Math.round(memory.reduce((a, b) => a + b, 0) / memory.length) : null,
      memoryLimitBytes: null,
      currentDiskBytes: current?.diskUsedBytes ?? (await folderBytes(workspaceDirs(owner.accountId, owner.userId).base).catch(() => null)),
      diskQuotaBytes: null,
      avgCpuLoadAvg: cpu.length ? round(cpu.reduce((a, b) => a + b, 0) / cpu.length) : null,
      totalActiveMinutes: Math.floor((usage.activeSeconds + Math.max(0, runningSeconds)) / 60),
      topMcpSlugs: [] as string[],
      running: ws !== null,
    },
  };
}
