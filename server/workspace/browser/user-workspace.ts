import { mkdir, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Download, Page } from 'playwright-core';
import { logger } from '@/server/logger';
import type { WorkspaceDirs } from './launch';
import { folderBytes, treeUsage } from './process-tree';

/** One measurement of a running workspace (spec document 2, Snapshot). */
export type WorkspaceSample = {
  takenAt: Date;
  memoryUsedBytes: number | null;
  memoryTotalBytes: number;
  diskUsedBytes: number | null;
  diskQuotaBytes: number | null;
  cpuLoadAvg: number | null;
  uptimeSeconds: number;
};

/** The tab of a session the user opened themselves (a handoff launched without a task). */
const OWN_TAB = '';

/** The workspace a browser context belongs to: page actions and the live view hold it through its page. */
const byContext = new WeakMap<BrowserContext, UserWorkspace>();
export const workspaceOf = (context: BrowserContext): UserWorkspace | undefined => byContext.get(context);
const CPU_WINDOW_MS = 60_000;

/** A download's name, reduced to something that stays inside the Downloads folder. */
function safeName(name: string) {
  const base = path.basename(name).replace(/[^\w.\- ()]/g, '_').replace(/^\.+/, '').slice(0, 180);
  return base || 'download';
}

/**
 * One user's running browser: one Chromium process, one persistent profile, one tab per task
 * (spec document 2, Limits: one browser per user, shared by their tasks). Held by the process
 * that started it (manager.ts).
 */
export class UserWorkspace {
  readonly startedAt = new Date();
  lastActiveAt = new Date();
  private readonly tabs = new Map<string, Page>();
  /** Task keys, most recently used last: which tab a person sees first. */
  private recent: string[] = [];
  private sequence = 0;
  private cpuMarks: { at: number; cpu: number }[] = [];
  /** Up to when running time has been added to the usage record. */
  accountedAt = Date.now();
  private stopping: Promise<void> | undefined;
  /** Work under way in this browser right now (a page action, a live view): it is busy, never closed to make room. */
  private holds = 0;

  constructor(
    readonly accountId: string,
    readonly userId: string,
    readonly dirs: WorkspaceDirs,
    readonly context: BrowserContext,
    readonly pid: number | null,
    private readonly onStop: (ws: UserWorkspace) => Promise<void>,
  ) {
    byContext.set(context, this);
    for (const p of context.pages()) this.watchDownloads(p);
    context.on('page', (p) => this.watchDownloads(p));
  }

  /** Marks the browser in use until the returned release is called (once; further calls do nothing). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
    };
  }

  /** Whether something in this process is using the browser right now (see hold). */
  get held(): boolean {
    return this.holds > 0;
  }

  /** The tasks that have a tab open (the user's own tab excluded). */
  taskIds(): string[] {
    return [...this.tabs.entries()].filter(([key, page]) => key !== OWN_TAB && !page.isClosed()).map(([key]) => key);
  }

  /** The task's tab (null: the user's own tab), opened on first use. */
  async pageForTask(taskId: string | null): Promise<Page> {
    const key = taskId ?? OWN_TAB;
    this.touch();
    const open = this.tabs.get(key);
    if (open && !open.isClosed()) {
      this.used(key);
      return open;
    }
    // Chromium opens one blank tab with the profile: the first task takes it.
    const claimed = new Set(this.tabs.values());
    const blank = this.context.pages().find((p) => !claimed.has(p) && !p.isClosed() && p.url() === 'about:blank');
    const page = blank ?? (await this.context.newPage());
    this.tabs.set(key, page);
    page.once('close', () => {
      if (this.tabs.get(key) === page) this.tabs.delete(key);
      this.recent = this.recent.filter((k) => k !== key);
    });
    this.used(key);
    return page;
  }

  /** The task's tab if it has one; never opens one. */
  existingPage(taskId: string | null): Page | null {
    const p = this.tabs.get(taskId ?? OWN_TAB);
    return p && !p.isClosed() ? p : null;
  }

  /** The tab used most recently (what a person taking the browser sees), or any open page. */
  activePage(): Page | null {
    for (const key of [...this.recent].reverse()) {
      const p = this.existingPage(key || null);
      if (p) return p;
    }
    return this.context.pages().find((p) => !p.isClosed()) ?? null;
  }

  /** Activity: postpones the idle stop. */
  touch() {
    this.lastActiveAt = new Date();
  }

  /** Watch frames number themselves: increasing within a session and across restarts (clock-based). */
  nextSequence(): number {
    this.sequence = Math.max(this.sequence + 1, Date.now());
    return this.sequence;
  }

  get running() {
    return this.stopping === undefined;
  }

  /** Closes the browser (idempotent); the profile stays on disk for the next start. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.context.close().catch(() => undefined);
      await this.onStop(this);
    })();
    return this.stopping;
  }

  /** Called on every tick of the manager: keeps a minute of CPU marks for the one-minute load. */
  async markCpu() {
    if (!this.pid) return;
    const u = await treeUsage(this.pid);
    if (!u) return;
    const now = Date.now();
    this.cpuMarks.push({ at: now, cpu: u.cpuSeconds });
    while (this.cpuMarks.length > 2 && now - this.cpuMarks[1]!.at >= CPU_WINDOW_MS) this.cpuMarks.shift();
  }

  /** Memory of the process tree (PSS), disk of the user's folder, CPU over about the last minute. */
  async measure(): Promise<WorkspaceSample> {
    const now = Date.now();
    const usage = this.pid ? await treeUsage(this.pid) : null;
    let cpuLoadAvg: number | null = null;
    if (usage) {
      const since = this.cpuMarks.find((m) => now - m.at <= CPU_WINDOW_MS * 1.5 && now - m.at >= 1000) ?? null;
      const [from, cpu] = since ? [since.at, since.cpu] : [this.startedAt.getTime(), 0];
      cpuLoadAvg = Math.max(0, usage.cpuSeconds - cpu) / Math.max(1, (now - from) / 1000);
      cpuLoadAvg = Math.round(cpuLoadAvg * 1000) / 1000;
    }
    return {
      takenAt: new Date(now),
      // Proportional set size: shared pages split among the processes (and browsers) mapping them.
      memoryUsedBytes: usage ? (usage.pssBytes ?? usage.rssBytes) : null,
      memoryTotalBytes: os.totalmem(),
      diskUsedBytes: await folderBytes(this.dirs.base).catch(() => null),
      diskQuotaBytes: null,
      cpuLoadAvg,
      uptimeSeconds: Math.round((now - this.startedAt.getTime()) / 1000),
    };
  }

  private used(key: string) {
    this.recent = [...this.recent.filter((k) => k !== key), key];
  }

  /** Downloads land in the user's Downloads folder under their own (sanitized) name. */
  private watchDownloads(page: Page) {
    page.on('download', (d) => {
      this.saveDownload(d).catch((e: unknown) => logger.warn({ err: e, userId: this.userId }, 'workspace download not saved'));
    });
  }

  private async saveDownload(d: Download) {
    await mkdir(this.dirs.downloads, { recursive: true, mode: 0o700 });
    const name = safeName(d.suggestedFilename());
    const ext = path.extname(name);
    let target = path.join(this.dirs.downloads, name);
    for (let i = 1; await stat(target).then(() => true, () => false); i++) {
      target = path.join(this.dirs.downloads, `${path.basename(name, ext)} (${i})${ext}`);
    }
    const tmp = `${target}.part`;
    await d.saveAs(tmp);
    await rename(tmp, target);
    await d.delete().catch(() => undefined);
    await rm(tmp, { force: true });
  }
}
