import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, type Browser, type Page } from '@playwright/test';
import { WIDTHS } from './hosted-app';

/*
 * docs/screens/ is written on demand, not by `npm test`: `npm run screens` runs the *.screens.ts
 * files of e2e/ (playwright.screens.config.ts), which `npm test` does not match.
 *
 * A spec lists its pages as `Shot`s and calls captureScreens with a way to sign in; every page is
 * taken at 1280 and 390 px as docs/screens/<name>-desktop.png and <name>-phone.png. The console's
 * screens are taken the same way (its own spec, its own list).
 */

export type Shot = {
  name: string;
  path: string | (() => string);
  /** What to do on the page before the picture (open a panel, type a draft...). */
  prepare?: (page: Page, width: keyof typeof WIDTHS) => Promise<void>;
  /** Only at this width. */
  only?: keyof typeof WIDTHS;
  /** Take the whole page (default) or the first screen only. */
  fullPage?: boolean;
};

const dir = () => path.resolve('docs/screens');

export async function saveScreen(page: Page, name: string, width: keyof typeof WIDTHS, fullPage = true) {
  mkdirSync(dir(), { recursive: true });
  await page.screenshot({ path: path.join(dir(), `${name}-${width}.png`), fullPage, animations: 'disabled', caret: 'hide' });
}

/** Every shot at both widths (or the one it names), each context signed in by `signIn` (nothing when it is omitted: signed-out pages). */
export async function captureScreens(browser: Browser, shots: Shot[], opts: { signIn?: (page: Page) => Promise<void>; colorScheme?: 'light' | 'dark'; suffix?: string } = {}) {
  for (const [width, viewport] of Object.entries(WIDTHS) as Array<[keyof typeof WIDTHS, (typeof WIDTHS)[keyof typeof WIDTHS]]>) {
    const context = await browser.newContext({ viewport, colorScheme: opts.colorScheme ?? 'light', deviceScaleFactor: 1, reducedMotion: 'reduce' });
    const page = await context.newPage();
    if (opts.signIn) await opts.signIn(page);
    for (const shot of shots) {
      if (shot.only && shot.only !== width) continue;
      await page.goto(typeof shot.path === 'function' ? shot.path() : shot.path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await page.waitForLoadState('networkidle');
      await shot.prepare?.(page, width);
      await saveScreen(page, `${shot.name}${opts.suffix ?? ''}`, width, shot.fullPage ?? true);
    }
    await context.close();
  }
}
