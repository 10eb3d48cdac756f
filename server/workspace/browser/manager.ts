import { sharedDatabase, type Db } from '@/db/client';
import { AppError } from '@/server/http/errors';
import { setWorkspaceBrowsers } from '@/server/http/metrics';
import { logger } from '@/server/logger';
import { recordActivity, recordSnapshot, recordStart } from '../snapshots';
import { makeRoom } from './capacity';
import { SNAPSHOT_EVERY_MS, workspaceConfig } from './config';
import { launchBrowser, workspaceDirs } from './launch';
import { findBrowserPid } from './process-tree';
import { UserWorkspace } from './user-workspace';

export { UserWorkspace } from './user-workspace';

/*
 * The browsers of this process, one per user (key: account and user), started on demand and
 * stopped after STEWARD_WORKSPACE_IDLE_MINUTES without activity. The state is per process. In a
 * deployment of several processes (STEWARD_NODE_URL), which process holds a user's browser is
 * decided in PostgreSQL before this manager starts one (../nodes/follow.ts): the others forward
 * that user's browser work to it, so Chromium never finds its profile in use by a sibling. A
 * process outside that arrangement that still finds the profile in use answers `workspace_busy`
 * (503, retry) rather than sharing or stealing it.
 * A start is admitted only within the browser caps (capacity.ts), which may close an idle
 * browser of someone else first.
 */

const live = new Map<string, UserWorkspace>();
const starting = new Map<string, Promise<UserWorkspace>>();
/** Starts admitted and still launching (key → account): they count against the caps already. */
const reserved = new Map<string, string>();
const keyOf = (accountId: string, userId: string) => `${accountId}/${userId}`;

/** Admissions one at a time, so two starts never both take the last place under a cap. */
let admissions: Promise<unknown> = Promise.resolve();
function admitStart(key: string, accountId: string, db: Db | null): Promise<void> {
  const admitted = admissions.then(async () => {
    const pending = [...reserved.entries()].filter(([k]) => k !== key);
    await makeRoom(db, accountId, () => [...live.values()], { forAccount: pending.filter(([, a]) => a === accountId).length, total: pending.length });
    reserved.set(key, accountId);
  });
  admissions = admitted.catch(() => undefined);
  return admitted;
}

/** Where usage is recorded: the caller's database, else the process-wide one when configured. */
function usageDb(db: Db | undefined): Db | null {
  if (db) return db;
  return process.env.DATABASE_URL ? sharedDatabase().db : null;
}

const quietly = (what: string, p: Promise<unknown>) => p.catch((e: unknown) => logger.warn({ err: e }, `workspace ${what} failed`));

/** The user's running browser, or null; never starts one (watch, profile). */
export function peekWorkspace(accountId: string, userId: string): UserWorkspace | null {
  const ws = live.get(keyOf(accountId, userId));
  return ws?.running ? ws : null;
}

/**
 * The user's browser; with `start` it is launched when not running (a cold start takes about
 * a second). `db` receives the usage record and snapshots (default: DATABASE_URL's). `onStop`
 * runs once the browser this call starts has stopped (the holder row goes: ../nodes/follow.ts).
 */
export async function workspaceFor(
  accountId: string,
  userId: string,
  opts: { start: boolean; db?: Db; onStop?: () => Promise<void> },
): Promise<UserWorkspace | null> {
  const running = peekWorkspace(accountId, userId);
  if (running) return running;
  if (!opts.start) return null;
  const key = keyOf(accountId, userId);
  let pending = starting.get(key);
  if (!pending) {
    const db = usageDb(opts.db);
    pending = admitStart(key, accountId, db)
      .then(() => start(accountId, userId, db, opts.onStop))
      .finally(() => {
        starting.delete(key);
        reserved.delete(key);
      });
    starting.set(key, pending);
  }
  return pending;
}

async function start(accountId: string, userId: string, db: Db | null, onStop?: () => Promise<void>): Promise<UserWorkspace> {
  const dirs = workspaceDirs(accountId, userId);
  let context;
  try {
    context = await launchBrowser(dirs);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    logger.warn({ err: e, accountId, userId }, 'workspace browser did not start');
    if (/ProcessSingleton|profile.*in use|SingletonLock/i.test(message)) {
      throw new AppError(503, 'workspace_busy', 'The browser of this workspace is open in another Steward process; retry there or later');
    }
    throw new AppError(503, 'workspace_unavailable', 'The workspace browser could not be started; retry later');
  }
  const pid = await findBrowserPid(dirs.profile);
  const key = keyOf(accountId, userId);
  const owner = { accountId, userId };
  const timers: NodeJS.Timeout[] = [];
  const ws: UserWorkspace = new UserWorkspace(accountId, userId, dirs, context, pid, async (w) => {
    timers.forEach(clearInterval);
    if (live.get(key) === w) live.delete(key);
    setWorkspaceBrowsers(live.size);
    if (db) await quietly('usage', recordActivity(db, owner, (Date.now() - w.accountedAt) / 1000, w.lastActiveAt));
    if (onStop) await quietly('holder release', onStop());
  });
  // Chromium may end on its own (a crash, the OOM killer): forget it, the next use starts a new one.
  context.on('close', () => void ws.stop());
  live.set(key, ws);
  setWorkspaceBrowsers(live.size);
  // Counted as running from here on, no longer as an admitted start.
  reserved.delete(key);

  const snapshot = async () => {
    if (!db || !ws.running) return;
    const sample = await ws.measure();
    const now = Date.now();
    await recordActivity(db, owner, (now - ws.accountedAt) / 1000, ws.lastActiveAt);
    ws.accountedAt = now;
    await recordSnapshot(db, owner, sample);
  };
  if (db) {
    await quietly('usage', recordStart(db, owner, ws.startedAt));
    // The first snapshot once the browser has settled, then every 5 minutes while it runs.
    timers.push(setTimeout(() => void quietly('snapshot', snapshot()), 2000));
    timers.push(setInterval(() => void quietly('snapshot', snapshot()), SNAPSHOT_EVERY_MS));
  }
  const { idleMs } = workspaceConfig();
  timers.push(
    setInterval(
      () => {
        if (Date.now() - ws.lastActiveAt.getTime() >= idleMs) void ws.stop();
        else void quietly('cpu mark', ws.markCpu());
      },
      Math.min(60_000, Math.max(250, idleMs / 4)),
    ),
  );
  for (const t of timers) t.unref();
  return ws;
}

/** Every browser of this process (shutdown, tests, the bench). */
export async function stopAllWorkspaces(): Promise<void> {
  await Promise.all([...live.values()].map((ws) => ws.stop()));
}

/** How many browsers this process holds. */
export const runningWorkspaceCount = () => live.size;

/** The browsers this process runs now (the node's heartbeat checks each is still its own). */
export const runningWorkspaces = (): UserWorkspace[] => [...live.values()].filter((ws) => ws.running);
