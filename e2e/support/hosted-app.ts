import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { api, expectAccessible } from './harness';

/*
 * What the hosted app's specs share (e2e/hosted-app-*.spec.ts): a provisioned, onboarded person
 * with an assistant, calls as them, the two widths every page is checked at, and the screenshots
 * committed under docs/screens.
 */

export const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

export type Person = { email: string; id: string; assistantId: string };

/** A person the account provisions, set up (timezone, hours, onboarding) with an assistant named Ada. */
export async function newPerson(prefix: string): Promise<Person> {
  const email = `${prefix}-${Date.now().toString(36)}@hosted-e2e.test`;
  const provisioned = await api('/users/provision', { body: { email, firstName: 'Hana', lastName: 'Host' } });
  expect(provisioned.status, JSON.stringify(provisioned.body)).toBeLessThan(300);
  const id = provisioned.body.user.id as string;
  for (const [p, method, body] of [
    ['/profile', 'PATCH', { timezone: 'Europe/Paris' }],
    [`/users/${id}/preferences/scheduling`, 'PUT', { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } }],
    ['/onboarding/mark-onboarded', 'POST', {}],
  ] as const) expect((await api(p, { method, body, as: email })).status).toBe(200);
  const hired = await api(`/users/${id}/assistants`, { body: { name: 'Ada' }, as: email });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  return { email, id, assistantId: hired.body.assistant.id as string };
}

export const as = (p: Person) => (url: string, opts: { method?: string; body?: unknown } = {}) => api(url, { ...opts, as: p.email });

/** A task of the person, handed to its assistant with `message` (the scripted model reads directives in it). */
export async function startTask(p: Person, title: string, message: string) {
  const created = await as(p)('/tasks', { body: { title, assistant: p.assistantId } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const taskId = created.body.task.id as string;
  expect((await as(p)(`/tasks/${taskId}/process`, { body: { message } })).status).toBe(200);
  return taskId;
}

/** Waits until the API shows the task in this state. */
export async function taskReaches(p: Person, taskId: string, check: (t: any) => boolean, message: string) {
  await expect.poll(async () => check((await as(p)(`/tasks/${taskId}`)).body.task), { timeout: 30_000, message }).toBe(true);
}

/** The page is there (its h1 and title), then axe finds nothing at WCAG A/AA and Tab reaches every control. */
export async function checkPage(page: Page, opts: { keyboard?: boolean } = {}) {
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.waitForLoadState('networkidle');
  await expect(page).toHaveTitle(/Steward/);
  await expectAccessible(page);
  if (opts.keyboard !== false) await expectEveryControlTabbable(page);
}

/**
 * Tab from the top reaches every enabled control. Like harness.ts' check, but it presses until all
 * were seen (a time input is several tab stops, one per field) and stops there, at most 3 per control.
 */
export async function expectEveryControlTabbable(page: Page) {
  // Only controls the page renders: the phone's bottom bar is display:none on a wide screen, and the reverse.
  const total = await page.evaluate(() => {
    const controls = Array.from(document.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), summary')).filter((el) => el.checkVisibility({ visibilityProperty: true }));
    controls.forEach((el, i) => el.setAttribute('data-kb', String(i)));
    return controls.length;
  });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const seen = new Set<string>();
  for (let i = 0; i < total * 3 + 10 && seen.size < total; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => document.activeElement?.closest('[data-kb]')?.getAttribute('data-kb') ?? null);
    if (id !== null) seen.add(id);
  }
  const missed = await page.evaluate((ids) => Array.from(document.querySelectorAll('[data-kb]')).filter((el) => !ids.includes(el.getAttribute('data-kb')!)).map((el) => el.outerHTML.slice(0, 120)), [...seen]);
  expect(missed).toEqual([]);
}

/** A screenshot kept with the test results (docs/screens/ is written by `npm run screens`). */
export async function screen(page: Page, name: string, width: keyof typeof WIDTHS) {
  const dir = path.resolve('test-results/e2e/screens');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
}

/** A console job against the e2e database (e.g. set-approval-lock), as an operator runs it. */
export function admin(...args: string[]): unknown {
  const out = execFileSync('npx', ['tsx', 'scripts/admin.ts', ...args], { env: { ...process.env, DATABASE_URL: process.env.E2E_DATABASE_URL, LOG_LEVEL: 'error' }, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

/** The innermost elements that reach past the right edge of the screen (what makes a page scroll sideways). */
export function widerThanScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // Inside a box that scrolls or clips sideways, an element past the edge widens nothing.
    const clipped = (el: Element) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
      return false;
    };
    const over = Array.from(document.body.querySelectorAll<HTMLElement>('*')).filter((el) => el.checkVisibility() && el.getBoundingClientRect().right > window.innerWidth + 1 && !clipped(el));
    return over
      .filter((el) => !over.some((o) => o !== el && el.contains(o)))
      .slice(0, 5)
      .map((el) => `${Math.round(el.getBoundingClientRect().right)}px ${el.outerHTML.slice(0, 120)}`);
  });
}

/**
 * A phone page as a thumb meets it: nothing wider than the screen, and every control a target of
 * at least 44 × 44 px (a native checkbox or file input counts by the label around it; links inside
 * a sentence are exempt, as WCAG 2.5.8 says).
 */
export async function expectPhoneFriendly(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `the page is wider than the screen: ${(await widerThanScreen(page)).join(' | ')}`).toBeLessThanOrEqual(1);
  const small = await page.evaluate(() => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('a[href], button, input:not([type=hidden]), select, textarea, summary, [role=switch], [role=checkbox]'))) {
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || !el.checkVisibility() || el.closest('[aria-hidden=true], [hidden]')) continue;
      const own = el.getBoundingClientRect();
      // A visually hidden control (a file input behind its button) is reached through its label.
      // Its label may wrap it or name it by for=id.
      const label = (el as HTMLInputElement).labels?.[0] ?? el.closest('label');
      let target: Element = (own.width <= 2 || own.height <= 2 || el.matches('input[type=checkbox], input[type=radio]')) && label ? label : el;
      // A stretched link or row button (an absolutely placed ::after over its row) is hit anywhere on that row.
      const after = getComputedStyle(el, '::after');
      if (after.content !== 'none' && after.position === 'absolute' && el.offsetParent) target = el.offsetParent;
      const r = target.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (el.tagName === 'A' && style.display === 'inline' && el.parentElement && /^(P|SPAN|LI|SMALL|DD|TD)$/.test(el.parentElement.tagName) && (el.parentElement.textContent ?? '').trim().length > (el.textContent ?? '').trim().length) continue;
      if (r.width < 43.5 || r.height < 43.5) out.push(`${Math.round(r.width)}×${Math.round(r.height)} ${el.outerHTML.slice(0, 100)}`);
    }
    return out;
  });
  expect(small, 'tap targets under 44 px').toEqual([]);
}
