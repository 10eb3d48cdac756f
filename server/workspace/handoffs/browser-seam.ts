import type { BrowserContext, Page } from 'playwright-core';
import { browserHere, onUserBrowser } from '../nodes/follow';

/*
 * What handoffs need of the user's browser (server/workspace/browser): start it, point a task's
 * tab at a URL, and the page the person sees in the live view. Behind this seam so a test (or a
 * deployment without Chromium) can replace it; with none registered, a handoff's URL is the one
 * the assistant claimed and the live view says the browser is unavailable.
 */
export type HandoffBrowser = {
  /** Starts the user's browser if it is not running. */
  start(accountId: string, userId: string): Promise<void>;
  /** Opens `url` in the task's tab (the user's own tab for null); the URL the tab shows afterwards. Refused URLs throw a 4xx AppError. */
  openForTask(accountId: string, userId: string, taskId: string | null, url: string): Promise<string | null>;
  /** The running browser's context, the page to show (the task's tab, else the active one) and a keep-alive; null when it cannot run. */
  livePage(accountId: string, userId: string, taskId: string | null): Promise<{ context: BrowserContext; page: Page; touch: () => void } | null>;
};

/**
 * The per-user Chromium of server/workspace/browser, in whichever process holds it
 * (nodes/follow.ts); the live view's page is this process's, since the live view's WebSocket
 * was forwarded to the holder (server/workspace/live/attach.ts).
 */
export const workspaceBrowser: HandoffBrowser = {
  async start(accountId, userId) {
    await onUserBrowser(accountId, userId, 'start', {});
  },
  async openForTask(accountId, userId, taskId, url) {
    return onUserBrowser(accountId, userId, 'openForTask', { taskId, url });
  },
  async livePage(accountId, userId, taskId) {
    const ws = await browserHere(accountId, userId);
    if (!ws) return null;
    const page = ws.existingPage(taskId) ?? ws.activePage() ?? (await ws.pageForTask(taskId));
    return { context: ws.context, page, touch: () => ws.touch() };
  },
};

let browser: HandoffBrowser | null = workspaceBrowser;

/** Replaces the browser handoffs use (null: none); returns the one it replaces. */
export function registerHandoffBrowser(b: HandoffBrowser | null): HandoffBrowser | null {
  const previous = browser;
  browser = b;
  return previous;
}

export const handoffBrowser = (): HandoffBrowser | null => browser;
