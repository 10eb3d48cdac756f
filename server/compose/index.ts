import { sharedDatabase, type Db } from '@/db/client';
import { wireAreaHooks } from './area-hooks';
import { wireChannels } from './channels';
import { askForSweepsWhileStarting, wireEngineHandovers } from './engine-handovers';
import { wireEngineWakeups } from './engine-wakeups';

/*
 * The one place the runtime is put together. Lower areas expose typed seams (a `register*`
 * function next to the hook it fills: tasks/runs.ts, notices/create.ts, channels/phone-lines.ts...)
 * and never import what fills them; the functions below fill every seam, in one call made by
 * each entry point, so reading this folder tells what a process runs. No module fills a seam
 * when it is imported (tests/architecture/composition.test.ts keeps `register*` calls here).
 *
 *   composeRuntime   every process that serves the API: scripts/start.ts, server/route-handlers.ts,
 *                    the tRPC handlers, the approvals page's server action
 *   composeServices  the areas' hooks, the channels and the engine wake-ups without the
 *                    commit-following handovers (tests' servers, which run the engine themselves)
 *   composeChannels  the channels alone (the admin CLI: a fulfilled phone line sends its notice)
 *
 * Each is idempotent: a second call (a module loaded twice by Next.js, a test file importing two
 * helpers) changes nothing, and a seam a test replaced stays replaced.
 */

const db = (): Db => sharedDatabase().db;
const done = new Set<string>();

function once(part: string, wire: () => void): void {
  if (done.has(part)) return;
  done.add(part);
  wire();
}

export function composeChannels(): void {
  once('channels', wireChannels);
}

export function composeServices(): void {
  once('hooks', wireAreaHooks);
  composeChannels();
  once('wakeups', wireEngineWakeups);
}

export function composeRuntime(): void {
  composeServices();
  once('handovers', () => {
    wireEngineHandovers();
    askForSweepsWhileStarting();
  });
}
