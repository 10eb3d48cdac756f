import { sharedDatabase, type Db } from '@/db/client';
import { logger } from '@/server/logger';
import { SNAPSHOT_EVERY_MS } from '../browser/config';
import { workspaceDirs } from '../browser/launch';
import { recordActivity, recordStart } from '../snapshots';
import { recordShellSnapshot } from '../snapshots-shell';
import { shellConfig } from './config';
import { measureWorkspace } from './quota';
import { forgetSandbox, liveSandboxes, peekSandbox, registerSandbox, sandboxKeyOf } from './registry';
import { UserSandbox } from './sandbox';
import { removeRuntimeDir } from './system-view';

/*
 * The sandboxes of this process, one per user, started on demand (the first command, file
 * write or job) and stopped after STEWARD_WORKSPACE_IDLE_MINUTES without activity, never while a
 * command or a job runs. The home folder stays on disk across stops and restarts. Like the
 * browser, a sandbox lives in the process that started it; another Steward process starts its
 * own on the same home when it needs one (commands of one user in two processes at once share
 * the home folder, not their processes).
 */

const starting = new Map<string, Promise<UserSandbox>>();

const quietly = (what: string, p: Promise<unknown>) => p.catch((e: unknown) => logger.warn({ err: e }, `workspace shell ${what} failed`));

function usageDb(db: Db | undefined): Db | null {
  if (db) return db;
  return process.env.DATABASE_URL ? sharedDatabase().db : null;
}

export { peekSandbox } from './registry';

/** The user's sandbox, started when it is not running. */
export async function sandboxFor(accountId: string, userId: string, opts: { db?: Db } = {}): Promise<UserSandbox> {
  const running = peekSandbox(accountId, userId);
  if (running) return running;
  const key = sandboxKeyOf(accountId, userId);
  let pending = starting.get(key);
  if (!pending) {
    pending = start(accountId, userId, usageDb(opts.db)).finally(() => starting.delete(key));
    starting.set(key, pending);
  }
  return pending;
}

async function start(accountId: string, userId: string, db: Db | null): Promise<UserSandbox> {
  const dirs = workspaceDirs(accountId, userId);
  const owner = { accountId, userId };
  const timers: NodeJS.Timeout[] = [];
  const sandbox = await UserSandbox.start(accountId, userId, dirs, (s) => {
    timers.forEach(clearInterval);
    forgetSandbox(s);
    if (db) void quietly('usage', recordActivity(db, owner, (Date.now() - s.accountedAt) / 1000, s.lastActiveAt));
  });
  registerSandbox(sandbox);
  // The first figure for the quota, so the first command does not wait for a measurement.
  void quietly('disk measurement', measureWorkspace(dirs));

  const snapshot = async () => {
    if (!db || !sandbox.running) return;
    const now = Date.now();
    await recordActivity(db, owner, (now - sandbox.accountedAt) / 1000, sandbox.lastActiveAt);
    sandbox.accountedAt = now;
    await recordShellSnapshot(db, owner);
  };
  if (db) {
    await quietly('usage', recordStart(db, owner, sandbox.startedAt));
    timers.push(setTimeout(() => void quietly('snapshot', snapshot()), 2000));
    timers.push(setInterval(() => void quietly('snapshot', snapshot()), SNAPSHOT_EVERY_MS));
  }
  const { idleMs } = shellConfig();
  timers.push(
    setInterval(
      () => {
        if (!sandbox.busy && Date.now() - sandbox.lastActiveAt.getTime() >= idleMs) void sandbox.stop();
        else void quietly('cpu mark', sandbox.markCpu());
      },
      Math.min(60_000, Math.max(250, idleMs / 4)),
    ),
  );
  for (const t of timers) t.unref();
  return sandbox;
}

/** Every sandbox of this process (shutdown, tests, the bench). */
export async function stopAllSandboxes(): Promise<void> {
  await Promise.all(liveSandboxes().map((s) => s.stop()));
  if (!liveSandboxes().length && !starting.size) await removeRuntimeDir();
}
