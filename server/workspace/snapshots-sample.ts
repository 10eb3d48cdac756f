import os from 'node:os';
import type { WorkspaceSample } from './browser/user-workspace';
import { workspaceDirs } from './browser/launch';
import { shellConfig } from './shell/config';
import { workspaceBytes } from './shell/quota';
import { peekSandbox } from './shell/registry';

/*
 * A snapshot of the whole workspace: what the browser's manager measured of the browser (or
 * nothing when it is not running) plus the user's shell sandbox when it runs. Memory and CPU
 * add up; the disk figure is the workspace folder (browser profile and home), the one the
 * quota counts; uptime is the longer of the two.
 */

type Owner = { accountId: string; userId: string };

const add = (a: number | null, b: number | null | undefined) => (a === null && (b === null || b === undefined) ? null : (a ?? 0) + (b ?? 0));

/** A browser sample for a moment the browser is not running. */
export const noBrowser = (takenAt = new Date()): WorkspaceSample => ({
  takenAt,
  memoryUsedBytes: null,
  memoryTotalBytes: 0,
  diskUsedBytes: null,
  diskQuotaBytes: null,
  cpuLoadAvg: null,
  uptimeSeconds: 0,
});

export async function withSandbox(o: Owner, browser: WorkspaceSample): Promise<WorkspaceSample> {
  const sandbox = peekSandbox(o.accountId, o.userId);
  const m = sandbox ? await sandbox.measure() : null;
  const cpu = add(browser.cpuLoadAvg, m?.cpuLoadAvg);
  const disk = await workspaceBytes(workspaceDirs(o.accountId, o.userId), 10_000).catch(() => browser.diskUsedBytes);
  return {
    takenAt: browser.takenAt,
    memoryUsedBytes: add(browser.memoryUsedBytes, m?.memoryBytes),
    memoryTotalBytes: browser.memoryTotalBytes || os.totalmem(),
    diskUsedBytes: disk,
    diskQuotaBytes: shellConfig().diskQuotaBytes,
    cpuLoadAvg: cpu === null ? null : Math.round(cpu * 1000) / 1000,
    uptimeSeconds: Math.max(browser.uptimeSeconds, m?.uptimeSeconds ?? 0),
  };
}
