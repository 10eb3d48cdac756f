import type { Locator, Page } from 'playwright-core';
import { AppError } from '@/server/http/errors';
import { checkWorkspaceUrl } from '../url-guard';
import { workspaceOf } from './user-workspace';

/*
 * What the agent's browser tools do in a tab, by Playwright. Page content is only ever read
 * as data; scripts run here are fixed strings (a function would be serialized with whatever
 * helpers the TypeScript build injected, which the page does not have).
 */

const NAV_TIMEOUT_MS = 20_000;
const ACT_TIMEOUT_MS = 5_000;
const MAX_TEXT = 20_000;
const MAX_LINKS = 100;
const MAX_FIELDS = 50;

const failed = (what: string, e: unknown) =>
  new AppError(502, 'browser_failed', `${what}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);

/** The URL the agent may open, or a refusal saying why (before anything is started). */
export async function guardUrl(url: string): Promise<URL> {
  const verdict = await checkWorkspaceUrl(url);
  if (!verdict.ok) throw new AppError(400, 'url_refused', `This URL cannot be opened in the workspace: ${verdict.reason}`, { code: verdict.code });
  return verdict.url;
}

/** Opens `url` in the tab after the URL guard accepted it (the egress proxy holds every later request to the same rule). */
/** Runs `work` with the page's browser marked busy: a browser in use is never closed to make room for another (capacity.ts). */
async function inUse<T>(page: Page, work: () => Promise<T>): Promise<T> {
  const release = workspaceOf(page.context())?.hold();
  try {
    return await work();
  } finally {
    release?.();
  }
}

export function openUrl(page: Page, url: string) {
  return inUse(page, () => open(page, url));
}

async function open(page: Page, url: string) {
  const target = await guardUrl(url);
  let status: number | null = null;
  try {
    const res = await page.goto(target.href, { waitUntil: 'domcontentloaded', timeout: NAV_TIMEOUT_MS });
    status = res?.status() ?? null;
  } catch (e) {
    throw failed('The page did not open', e);
  }
  return { url: page.url(), title: await page.title().catch(() => ''), status };
}

const READ_SCRIPT = `(() => {
  const clean = (s) => (s || '').replace(/[ \\t]+/g, ' ').replace(/\\n\\s*\\n+/g, '\\n\\n').trim();
  const links = [];
  const seen = new Set();
  for (const a of document.querySelectorAll('a[href]')) {
    if (seen.has(a.href) || links.length >= ${MAX_LINKS}) continue;
    seen.add(a.href);
    links.push({ text: clean(a.innerText || a.getAttribute('aria-label') || a.title).slice(0, 200), href: a.href });
  }
  const fields = [];
  for (const el of document.querySelectorAll('input:not([type=hidden]), textarea, select, button')) {
    if (fields.length >= ${MAX_FIELDS}) break;
    const label = clean((el.labels && el.labels[0] && el.labels[0].innerText) || el.getAttribute('aria-label') || el.getAttribute('placeholder') || (el.tagName === 'BUTTON' ? el.innerText : '') || el.value && el.type === 'submit' && el.value || '');
    const selector = el.id ? '#' + CSS.escape(el.id) : el.name ? el.tagName.toLowerCase() + '[name="' + el.name.replace(/"/g, '\\\\"') + '"]' : null;
    fields.push({ tag: el.tagName.toLowerCase(), type: el.type || null, name: el.name || null, label: label.slice(0, 200), selector });
  }
  return { title: document.title, text: clean(document.body ? document.body.innerText : ''), links, fields };
})()`;

/** The tab's readable text, its links and its form controls (with a selector to act on each). */
export function readPage(page: Page) {
  return inUse(page, () => read(page));
}

async function read(page: Page) {
  try {
    const r = (await page.evaluate(READ_SCRIPT)) as { title: string; text: string; links: unknown[]; fields: unknown[] };
    return { url: page.url(), title: r.title, text: r.text.slice(0, MAX_TEXT), truncated: r.text.length > MAX_TEXT, links: r.links, fields: r.fields };
  } catch (e) {
    throw failed('The page could not be read', e);
  }
}

export type BrowserAction = {
  action: 'click' | 'type' | 'select' | 'scroll';
  selector?: string;
  text?: string;
  /** The user's `website` autonomy cell: anything but `auto` keeps the act from submitting a form that sends data (postsAForm). */
  websiteMode?: 'auto' | 'time-boxed' | 'manual';
};

/** A selector (CSS, or Playwright's role=/text= forms) or, for a click, the accessible name in `text`. */
function target(page: Page, a: BrowserAction): Locator | null {
  if (a.selector) return page.locator(a.selector).first();
  if (a.action === 'click' && a.text) {
    const name = { name: a.text };
    return page
      .getByRole('button', name)
      .or(page.getByRole('link', name))
      .or(page.getByRole('menuitem', name))
      .or(page.getByRole('tab', name))
      .or(page.getByRole('checkbox', name))
      .or(page.getByRole('radio', name))
      .or(page.getByLabel(a.text))
      .or(page.getByText(a.text, { exact: true }))
      .first();
  }
  return null;
}

export function actOnPage(page: Page, a: BrowserAction) {
  return inUse(page, () => act(page, a));
}

/**
 * Would this act submit a form that sends data to the site (method post: a sign-in, a message, an
 * order, a change)? Clicking its submit control does, and so does Enter typed into one of its
 * fields. A get form (a search) only navigates. A script that posts on a click of something that is
 * not a form's submit control is not recognized (docs/decisions.md). The functions run in the page,
 * so they declare no named helpers (tsx would wrap them in a helper the page does not have).
 */
async function postsAForm(page: Page, el: Locator | null, a: BrowserAction): Promise<boolean> {
  if (a.action === 'click' && el) {
    return el
      .evaluate((node: Element) => {
        const control = node.closest('button, input[type="submit"], input[type="image"]') as HTMLButtonElement | HTMLInputElement | null;
        if (!control || !control.form) return false;
        if (control.tagName === 'BUTTON' && (control.getAttribute('type') ?? 'submit').toLowerCase() !== 'submit') return false;
        return (control.getAttribute('formmethod') ?? control.form.getAttribute('method') ?? 'get').toLowerCase() === 'post';
      }, undefined, { timeout: ACT_TIMEOUT_MS })
      .catch(() => false);
  }
  if (a.action === 'type' && /[\r\n]/.test(a.text ?? '')) {
    return (el ?? page.locator(':focus'))
      .evaluate((node: Element) => {
        const form = (node as HTMLInputElement).form ?? node.closest('form');
        return Boolean(form) && (form!.getAttribute('method') ?? 'get').toLowerCase() === 'post';
      }, undefined, { timeout: ACT_TIMEOUT_MS })
      .catch(() => false);
  }
  return false;
}

async function act(page: Page, a: BrowserAction) {
  const el = target(page, a);
  if (a.websiteMode && a.websiteMode !== 'auto' && (await postsAForm(page, el, a))) {
    throw new AppError(
      403,
      'website_needs_approval',
      `This would submit a form to the site (it sends data: it may sign in, send, buy or change something there), and the user’s setting for acting on websites is ${a.websiteMode}: nothing was submitted. Ask the user (ask_user) whether to submit it, or hand the browser to them (request_handoff) to submit it themselves.`,
    );
  }
  try {
    switch (a.action) {
      case 'click':
        if (!el) throw new AppError(400, 'target_required', 'click needs a selector, or the accessible name of what to click in text');
        await el.click({ timeout: ACT_TIMEOUT_MS });
        break;
      case 'type':
        if (a.text === undefined) throw new AppError(400, 'text_required', 'type needs the text to type');
        if (el) await el.fill(a.text, { timeout: ACT_TIMEOUT_MS });
        else await page.keyboard.type(a.text);
        break;
      case 'select':
        if (!el || a.text === undefined) throw new AppError(400, 'target_required', 'select needs the selector of the list and the option in text');
        await el.selectOption({ label: a.text }, { timeout: ACT_TIMEOUT_MS }).catch(() => el.selectOption(a.text!, { timeout: ACT_TIMEOUT_MS }));
        break;
      case 'scroll':
        if (el) await el.scrollIntoViewIfNeeded({ timeout: ACT_TIMEOUT_MS });
        else await page.mouse.wheel(0, a.text?.trim().toLowerCase() === 'up' ? -600 : 600);
        break;
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw failed(`${a.action} did not work`, e);
  }
  // A click may start a navigation: let it reach the new document before reporting where the tab is.
  await page.waitForLoadState('domcontentloaded', { timeout: ACT_TIMEOUT_MS }).catch(() => undefined);
  return { done: true, action: a.action, url: page.url(), title: await page.title().catch(() => '') };
}
