import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { dnsFile, e2eBaseUrl, mailDir } from './e2e-env';

export const BASE = e2eBaseUrl();

/** The public API with the account key (and X-User-Email when `as` is given). */
export async function api<T = any>(p: string, opts: { method?: string; body?: unknown; as?: string; key?: string } = {}): Promise<{ status: number; body: T }> {
  const send = () =>
    fetch(`${BASE}/api${p}`, {
      method: opts.method ?? (opts.body ? 'POST' : 'GET'),
      headers: {
        Authorization: `Bearer ${opts.key ?? process.env.E2E_API_KEY}`,
        ...(opts.as ? { 'X-User-Email': opts.as } : {}),
        ...(opts.body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: opts.body ? JSON.stringify(opts.body) : undefined,
    });
  let res: Response;
  try {
    res = await send();
  } catch (e) {
    // A pooled keep-alive connection the server closed while idle ("other side closed"): the
    // request never reached it, so it is sent once more on a new connection.
    if (!/other side closed/.test(String((e as { cause?: unknown }).cause))) throw e;
    res = await send();
  }
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
}

type Mail = { to: string[]; subject: string; text: string };

/** Every message the loopback SMTP server captured so far for `to` (captured since `since`), oldest first. */
export function mailsTo(to: string, since = 0): Mail[] {
  return readdirSync(mailDir())
    .filter((f) => Number(f.split('-')[0]) >= since)
    .sort((a, b) => Number(a.split('-')[0]) - Number(b.split('-')[0]) || Number(a.split('-')[1].split('.')[0]) - Number(b.split('-')[1].split('.')[0]))
    .map((f) => JSON.parse(readFileSync(path.join(mailDir(), f), 'utf8')) as Mail)
    .filter((m) => m.to.includes(to));
}

/** The newest message the loopback SMTP server captured for `to`, waiting for it to arrive. */
export async function mailTo(to: string, since = 0): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(() => {
      const files = readdirSync(mailDir()).filter((f) => Number(f.split('-')[0]) >= since).sort();
      found = files.map((f) => JSON.parse(readFileSync(path.join(mailDir(), f), 'utf8')) as Mail).filter((m) => m.to.includes(to)).at(-1);
      return Boolean(found);
    })
    .toBe(true);
  return found!;
}

/** Publishes a TXT record on the loopback DNS server the app resolves through. */
export function publishTxt(name: string, value: string) {
  const records = JSON.parse(readFileSync(dnsFile(), 'utf8')) as Record<string, string[]>;
  records[name.toLowerCase()] = [...(records[name.toLowerCase()] ?? []), value];
  writeFileSync(dnsFile(), JSON.stringify(records));
}

/** Full-page screenshot kept with the test artifacts. */
export const shoot = (page: Page, name: string) => page.screenshot({ path: `test-results/e2e/${name}.png`, fullPage: true });

/** WCAG 2 A and AA checks by axe on the current page. */
export async function expectAccessible(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
}

/** Signs in through the sign-in page and the emailed link, keyboard only. */
export async function signInByEmail(page: Page, email: string) {
  const before = Date.now();
  await page.goto('/sign-in');
  await page.getByLabel('Work email').focus();
  await page.keyboard.type(email);
  await page.keyboard.press('Enter');
  // The link's mail is handed to SMTP before the page answers: on a loaded machine that takes longer than 5 s.
  await expect(page.getByRole('status')).toContainText('Check your email', { timeout: 20_000 });
  let link = '';
  await expect
    .poll(async () => {
      const m = await mailTo(email, before);
      link = /https?:\/\/\S+\/api\/auth\/callback\/email\S+/.exec(m.text)?.[0] ?? '';
      return Boolean(link);
    })
    .toBe(true);
  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Welcome');
}

/**
 * Keyboard check: pressing Tab from the top reaches every enabled control on the page
 * (links, buttons, inputs, selects, text areas), in some order, with nothing skipped.
 */
export async function expectKeyboardReachable(page: Page) {
  // Only controls the page renders: the phone's bottom bar is display:none on a wide screen, and the reverse.
  const total = await page.evaluate(() => {
    const controls = Array.from(document.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled])')).filter((el) => el.checkVisibility({ visibilityProperty: true }));
    controls.forEach((el, i) => el.setAttribute('data-kb', String(i)));
    return controls.length;
  });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const seen = new Set<string>();
  for (let i = 0; i < total + 5; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-kb') ?? null);
    if (id !== null) seen.add(id);
  }
  const missed = await page.evaluate((ids) => Array.from(document.querySelectorAll('[data-kb]')).filter((el) => !ids.includes(el.getAttribute('data-kb')!)).map((el) => el.outerHTML.slice(0, 120)), [...seen]);
  expect(missed).toEqual([]);
}

/** SP-initiated SAML sign-in through the loopback test IdP page. */
export async function signInBySaml(page: Page, email: string) {
  await page.goto('/sign-in');
  await page.getByLabel('Work email').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${process.env.E2E_IDP_URL}/sso?**`);
  await page.getByLabel('Email at the IdP').fill(email);
  await page.getByRole('button', { name: 'Sign in at the test IdP' }).click();
  await page.getByRole('button', { name: 'Continue to Steward' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Welcome');
}
