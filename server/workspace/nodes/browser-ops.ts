import { AppError } from '@/server/http/errors';
import type { UserWorkspace, WorkspaceSample } from '../browser/user-workspace';
import { actOnPage, openUrl, readPage, type BrowserAction } from '../browser/page-actions';
import { cleanRunningWorkspace, type CleanupScope } from '../clean-running';
import { captureFrame, type Frame } from '../browser/frames';

/*
 * What can be done with a user's browser, by name, in whichever process holds it (follow.ts):
 * the same function runs in this process when the browser is here, or in the holder when a call
 * between processes brings it there. Arguments and answers are plain JSON. `start`: the operation
 * starts the browser when nobody runs it; otherwise it only looks at a running one and answers
 * what it answers when there is none (`ws` null).
 */

type Op<A, R> = { start: boolean; timeoutMs: number; run: (ws: UserWorkspace | null, args: A) => Promise<R> };
const op = <A, R>(o: Op<A, R>) => o;

const noPage = () => new AppError(409, 'no_page', 'Nothing is open in this task’s tab: call browser_open first.');

function started(ws: UserWorkspace | null): UserWorkspace {
  if (!ws) throw new AppError(503, 'workspace_unavailable', 'The workspace browser could not be started; retry later');
  return ws;
}

/** The browser's own part of a profile reading: the measurement, and the running time not yet recorded. */
export type BrowserMeasure = { sample: Omit<WorkspaceSample, 'takenAt'> & { takenAt: string }; accountedAt: number; lastActiveAt: string };

export const browserOps = {
  /** Starts the browser (nothing more): a handoff's launch and session. */
  start: op<Record<string, never>, null>({ start: true, timeoutMs: 90_000, run: async (ws) => (started(ws), null) }),
  /** A handoff's target in the task's tab (the user's own tab for null): the URL the tab shows then. */
  openForTask: op<{ taskId: string | null; url: string }, string>({
    start: true,
    timeoutMs: 90_000,
    run: async (ws, a) => (await openUrl(await started(ws).pageForTask(a.taskId), a.url)).url,
  }),
  /** browser_open. */
  open: op<{ taskId: string; url: string }, Awaited<ReturnType<typeof openUrl>>>({
    start: true,
    timeoutMs: 90_000,
    run: async (ws, a) => openUrl(await started(ws).pageForTask(a.taskId), a.url),
  }),
  /** browser_read. */
  read: op<{ taskId: string }, Awaited<ReturnType<typeof readPage>>>({
    start: false,
    timeoutMs: 60_000,
    run: async (ws, a) => {
      const page = ws?.existingPage(a.taskId);
      if (!ws || !page) throw noPage();
      ws.touch();
      return readPage(page);
    },
  }),
  /** browser_act. */
  act: op<{ taskId: string; action: BrowserAction }, Awaited<ReturnType<typeof actOnPage>>>({
    start: false,
    timeoutMs: 60_000,
    run: async (ws, a) => {
      const page = ws?.existingPage(a.taskId);
      if (!ws || !page) throw noPage();
      ws.touch();
      return actOnPage(page, a.action);
    },
  }),
  /** GET /workspace/watch: one frame of the task's tab, or null (not running, no tab). Never starts, never touches. */
  watch: op<{ taskId: string }, Frame | null>({ start: false, timeoutMs: 30_000, run: async (ws, a) => (ws ? captureFrame(ws, a.taskId) : null) }),
  /** GET /workspace/profile: the running browser's measurement, or null. */
  measure: op<Record<string, never>, BrowserMeasure | null>({
    start: false,
    timeoutMs: 30_000,
    run: async (ws) => {
      if (!ws) return null;
      const s = await ws.measure();
      return { sample: { ...s, takenAt: s.takenAt.toISOString() }, accountedAt: ws.accountedAt, lastActiveAt: ws.lastActiveAt.toISOString() };
    },
  }),
  /** POST /workspace/cleanup, once the caller was found to be the user in person. */
  cleanup: op<{ scope: CleanupScope }, null>({
    start: true,
    timeoutMs: 120_000,
    run: async (ws, a) => {
      await cleanRunningWorkspace(started(ws), a.scope);
      return null;
    },
  }),
};

export type BrowserOps = typeof browserOps;
export type OpName = keyof BrowserOps;
export type OpArgs<K extends OpName> = Parameters<BrowserOps[K]['run']>[1];
export type OpResult<K extends OpName> = Awaited<ReturnType<BrowserOps[K]['run']>>;

export const isOpName = (name: string): name is OpName => Object.hasOwn(browserOps, name);
