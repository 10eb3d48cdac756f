import path from 'node:path';

/** The workspace's settings, read from the environment at each use (tests change them per file). */
export function workspaceConfig() {
  const minutes = Number(process.env.STEWARD_WORKSPACE_IDLE_MINUTES);
  return {
    chromiumPath: process.env.STEWARD_CHROMIUM_PATH || '/usr/bin/chromium',
    /** Every user's profile and home folder live below this one (mode 0700 each). */
    rootDir: path.resolve(
      /*turbopackIgnore: true*/ process.env.STEWARD_WORKSPACE_DIR ?? path.join(process.env.STEWARD_DATA_DIR ?? '.data', 'workspaces'),
    ),
    idleMs: (Number.isFinite(minutes) && minutes > 0 ? minutes : 15) * 60_000,
    /** Chromium's own sandbox needs an unprivileged user and user namespaces: opt in where the host has them. */
    sandbox: process.env.STEWARD_WORKSPACE_SANDBOX === 'on',
  };
}

/** Spec document 2, Limits: snapshots at most every 5 minutes, kept 30 days. */
export const SNAPSHOT_EVERY_MS = 5 * 60_000;
export const SNAPSHOT_KEEP_DAYS = 30;
/** The tab size: watch frames and the live view show exactly this many pixels. */
export const VIEWPORT = { width: 1280, height: 800 } as const;
