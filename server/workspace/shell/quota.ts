import { AppError } from '@/server/http/errors';
import type { WorkspaceDirs } from '../browser/launch';
import { folderBytes } from '../browser/process-tree';
import { shellConfig } from './config';

/*
 * The disk quota of a user's workspace folder (the browser profile and the home directory
 * together: currentDiskBytes and diskQuotaBytes of the profile describe the same folder). No
 * filesystem quota is assumed, so Steward enforces it itself, in three layers:
 *
 * 1. before a command, a file write or a job, a workspace at or over its quota is refused;
 * 2. every command runs with RLIMIT_FSIZE set to what is left, so no single file can pass it;
 * 3. while commands run, the folder is measured again and again (every tenth of a second, less
 *    often when measuring itself takes long), and a command is killed once the folder is over.
 *
 * Many small files written faster than one measuring interval can overshoot by what was written
 * in that interval. Deleting files (file_delete) and POST /workspace/cleanup stay allowed.
 */

type Measured = { bytes: number; at: number };
const measured = new Map<string, Measured>();
const inFlight = new Map<string, Promise<number>>();

/** Measures the folder now (concurrent callers share one walk; `fresh` starts a walk of its own, begun after the caller's last change). */
export function measureWorkspace(dirs: WorkspaceDirs, opts: { fresh?: boolean } = {}): Promise<number> {
  const shared = opts.fresh ? undefined : inFlight.get(dirs.base);
  if (shared) return shared;
  const p: Promise<number> = folderBytes(dirs.base)
    .then((bytes) => {
      measured.set(dirs.base, { bytes, at: Date.now() });
      return bytes;
    })
    .finally(() => {
      if (inFlight.get(dirs.base) === p) inFlight.delete(dirs.base);
    });
  inFlight.set(dirs.base, p);
  return p;
}

/** The last measurement if it is recent enough, else a new one. */
export async function workspaceBytes(dirs: WorkspaceDirs, maxAgeMs = 5000): Promise<number> {
  const last = measured.get(dirs.base);
  return last && Date.now() - last.at <= maxAgeMs ? last.bytes : measureWorkspace(dirs);
}

/** The last measurement without measuring (null: never measured in this process). */
export const lastWorkspaceBytes = (dirs: WorkspaceDirs): number | null => measured.get(dirs.base)?.bytes ?? null;

export const quotaExceeded = (used: number, quota: number) =>
  new AppError(
    409,
    'disk_quota_exceeded',
    `The workspace uses ${used} of its ${quota} bytes of disk: nothing more can be written. Delete files (file_delete) or ask the user to run a cleanup.`,
    { usedBytes: used, quotaBytes: quota },
  );

/** Bytes left under the quota; refuses (409 disk_quota_exceeded) when nothing is left or `adding` would not fit. */
export async function roomLeft(dirs: WorkspaceDirs, adding = 0): Promise<number> {
  const quota = shellConfig().diskQuotaBytes;
  let used = await workspaceBytes(dirs);
  // A figure from before a delete may be stale: measure again before refusing.
  if (used + adding >= quota) used = await measureWorkspace(dirs, { fresh: true });
  if (used + adding >= quota) throw quotaExceeded(used, quota);
  return quota - used;
}

/**
 * Measures the folder while `running()` says work is under way and calls `over` once when it
 * passes the quota. Returns a stop function.
 */
export function watchQuota(dirs: WorkspaceDirs, over: (usedBytes: number) => void): () => void {
  let stopped = false;
  const quota = shellConfig().diskQuotaBytes;
  void (async () => {
    while (!stopped) {
      const started = Date.now();
      const used = await measureWorkspace(dirs).catch(() => 0);
      if (stopped) return;
      if (used >= quota) {
        over(used);
        return;
      }
      // Measuring a big checkout takes a while: never spend more than about a third of the time on it.
      await new Promise((r) => setTimeout(r, Math.max(100, 3 * (Date.now() - started))).unref());
    }
  })();
  return () => {
    stopped = true;
  };
}
