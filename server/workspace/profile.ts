import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { workspaceUsage } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { onUserBrowser } from './nodes/follow';
import { topMcpSlugs } from './profile-mcp';
import { recentSnapshots } from './snapshots';
import { noBrowser, withSandbox } from './snapshots-sample';
import { shellConfig } from './shell/config';
import { peekSandbox } from './shell/registry';

const DAY_MS = 86_400_000;

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * GET /workspace/profile: measured numbers, never estimates. Peaks and averages cover the
 * last 24 hours of snapshots plus, while the browser or the shell sandbox runs, a measurement
 * taken now (both together, as snapshots hold them). memoryLimitBytes and diskQuotaBytes are the
 * limits the shell sandbox is held to (shell/config.ts; how: shell/cgroup.ts, shell/quota.ts);
 * the disk figures are the whole workspace folder, which the quota counts. topMcpSlugs: the MCP
 * skills the user's runs called most in the same 24 hours. Null until the workspace has run once.
 */
export async function workspaceProfile(db: Tx, actor: Actor, now = new Date()) {
  const user = requireUser(actor);
  const owner = { accountId: actor.accountId, userId: user.id };
  const [usage] = await db
    .select()
    .from(workspaceUsage)
    .where(and(eq(workspaceUsage.accountId, owner.accountId), eq(workspaceUsage.userId, owner.userId)));
  if (!usage) return { ok: true as const, profile: null };

  // The browser is measured where it runs (nodes/follow.ts); the sandbox is this process's.
  const measured = await onUserBrowser(owner.accountId, owner.userId, 'measure', {});
  const ws = measured && { accountedAt: measured.accountedAt, lastActiveAt: new Date(measured.lastActiveAt) };
  const sandbox = peekSandbox(owner.accountId, owner.userId);
  const current = await withSandbox(owner, measured ? { ...measured.sample, takenAt: new Date(measured.sample.takenAt) } : noBrowser(now));
  const live = ws || sandbox ? current : null;
  const since = new Date(now.getTime() - DAY_MS);
  const recent = await recentSnapshots(db, owner, since);
  const memory = [...recent.map((s) => s.memoryUsedBytes), live?.memoryUsedBytes ?? null].filter((n): n is number => n !== null);
  const cpu = [...recent.map((s) => s.cpuLoadAvg), live?.cpuLoadAvg ?? null].filter((n): n is number => n !== null);
  const runningSeconds = (ws ? (now.getTime() - ws.accountedAt) / 1000 : 0) + (sandbox ? (now.getTime() - sandbox.accountedAt) / 1000 : 0);
  const lastActive = [usage.lastActiveAt, ws?.lastActiveAt, sandbox?.lastActiveAt].filter((d): d is Date => d !== undefined);
  const cfg = shellConfig();
  return {
    ok: true as const,
    profile: {
      lastActiveAt: new Date(Math.max(...lastActive.map((d) => d.getTime()))).toISOString(),
      updatedAt: now.toISOString(),
      peakMemoryBytes: memory.length ? Math.max(...memory) : null,
      avgMemoryBytes: memory.length ? Math.round(memory.reduce((a, b) => a + b, 0) / memory.length) : null,
      memoryLimitBytes: cfg.memoryBytes,
      currentDiskBytes: current.diskUsedBytes,
      diskQuotaBytes: cfg.diskQuotaBytes,
      avgCpuLoadAvg: cpu.length ? round(cpu.reduce((a, b) => a + b, 0) / cpu.length) : null,
      totalActiveMinutes: Math.floor((usage.activeSeconds + Math.max(0, runningSeconds)) / 60),
      topMcpSlugs: await topMcpSlugs(db, owner, since),
      running: ws !== null || sandbox !== null,
    },
  };
}
