import type { CDPSession, Page } from 'playwright-core';
import { logger } from '@/server/logger';
import type { UserWorkspace } from './user-workspace';

/*
 * Frames of a tab for GET /workspace/watch, taken in the process that runs the browser. Frames
 * come from CDP's capture with `optimizeForSpeed`, a few times faster than a Playwright
 * screenshot, which waits for fonts and stable layout.
 */

const sessions = new WeakMap<Page, Promise<CDPSession>>();

function cdp(page: Page): Promise<CDPSession> {
  let s = sessions.get(page);
  if (!s) {
    s = page.context().newCDPSession(page);
    s.catch(() => sessions.delete(page));
    sessions.set(page, s);
  }
  return s;
}

/** Width and height from a PNG's IHDR chunk: what the frame really is, not what was asked for. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export async function capturePng(page: Page): Promise<Buffer> {
  const session = await cdp(page);
  const { data } = (await session.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true })) as { data: string };
  return Buffer.from(data, 'base64');
}

/**
 * The fast capture, and when it fails on a tab that is still open (a busy machine: the compositor
 * has no frame yet, or the CDP session was dropped) Playwright's screenshot, which waits for one.
 * Only a tab that closed or a browser that stopped answers unavailable.
 */
async function captureWithFallback(page: Page): Promise<Buffer> {
  try {
    return await capturePng(page);
  } catch (e) {
    if (page.isClosed()) throw e;
    logger.warn({ err: e }, 'watch: fast capture failed; falling back to a screenshot');
    sessions.delete(page);
    return await page.screenshot({ type: 'png', timeout: 10_000 });
  }
}

/** One frame of the task's tab in a running browser: what watch shows. */
export type Frame = { capturedAt: string; width: number; height: number; pngBase64: string; sequence: number };

/** The task's tab as a frame, or null when it has no tab (or the tab closed meanwhile). */
export async function captureFrame(ws: UserWorkspace, taskId: string): Promise<Frame | null> {
  const page = ws.existingPage(taskId);
  if (!page) return null;
  let png: Buffer;
  try {
    png = await captureWithFallback(page);
  } catch {
    // The tab closed or the browser stopped between the lookup and the capture.
    return null;
  }
  const { width, height } = pngSize(png);
  return { capturedAt: new Date().toISOString(), width, height, pngBase64: png.toString('base64'), sequence: ws.nextSequence() };
}
