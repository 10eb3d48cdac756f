import { expect, test, type Page } from '@playwright/test';
import { api, mailTo, shoot } from './support/harness';
import { admin, checkPage, newPerson, widerThanScreen, WIDTHS } from './support/hosted-app';

/*
 * The console at /console (spec 6) in a real browser: a console member made with the admin CLI
 * signs in by email link like everyone else and lands on it; every section at 1280 and 390 px
 * keeps its title and h1, has no horizontal scroll, is clean for axe (WCAG A/AA) and reachable
 * with Tab; a viewer sees the same pages without change controls; someone who is not a member
 * gets the 404 page.
 */

test.describe.configure({ mode: 'serial' });

const stamp = Date.now().toString(36);
const developer = `console-dev-${stamp}@console-e2e.test`;
const viewer = `console-viewer-${stamp}@console-e2e.test`;
let webhookId = '';

const PAGES: Array<{ name: string; path: () => string; h1: string }> = [
  { name: 'console-overview', path: () => '/console', h1: 'Overview' },
  { name: 'console-models', path: () => '/console/models', h1: 'Models' },
  { name: 'console-keys', path: () => '/console/keys', h1: 'API keys' },
  { name: 'console-certificates', path: () => '/console/certificates', h1: 'Certificates' },
  { name: 'console-kill-switch', path: () => '/console/kill-switch', h1: 'Kill switch' },
  { name: 'console-policy', path: () => '/console/policy', h1: 'Locks and capabilities' },
  { name: 'console-limits', path: () => '/console/limits', h1: 'Limits and budgets' },
  { name: 'console-phone-lines', path: () => '/console/phone-lines?show=all', h1: 'Phone lines' },
  { name: 'console-chat-apps', path: () => '/console/chat-apps', h1: 'Slack and Teams' },
  { name: 'console-webhooks', path: () => '/console/webhooks', h1: 'Webhooks' },
  { name: 'console-webhook', path: () => `/console/webhooks/${webhookId}`, h1: 'CRM sync' },
  { name: 'console-audit', path: () => '/console/audit', h1: 'Audit log' },
  { name: 'console-members', path: () => '/console/members', h1: 'Console members' },
];

/** Signs in by the emailed link, starting from /console: the link brings the person back there. */
async function signInToConsole(page: Page, email: string) {
  const before = Date.now();
  await page.goto('/console');
  await expect(page).toHaveURL(/\/sign-in\?returnTo=%2Fconsole/);
  await page.getByLabel('Work email').fill(email);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toContainText('Check your email');
  let link = '';
  await expect
    .poll(async () => {
      link = /https?:\/\/\S+\/api\/auth\/callback\/email\S+/.exec((await mailTo(email, before)).text)?.[0] ?? '';
      return Boolean(link);
    })
    .toBe(true);
  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Overview');
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  // Made by the operator: the developer's address belongs to nobody yet, so a user is made for it.
  expect(admin('add-console-member', '--account', process.env.E2E_ACCOUNT_ID!, '--email', developer, '--role', 'developer')).toMatchObject({ ok: true, userCreated: true });
  expect(admin('add-console-member', '--account', process.env.E2E_ACCOUNT_ID!, '--email', viewer, '--role', 'viewer')).toMatchObject({ ok: true });
  // Something on every page: a user with a phone-line request, a webhook endpoint, a budget.
  const person = await newPerson('console-tour');
  expect((await api('/phone-line-requests', { as: person.email, body: { requestedChannels: { sms: true }, notes: 'A Paris number please' } })).status).toBe(201);
  const hook = await api('/webhooks', { body: { url: 'http://127.0.0.1:9/steward', description: 'CRM sync', events: ['task.status_changed'] } });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  webhookId = hook.body.webhook.id;
  // Off, so nothing is sent to it: the page shows an endpoint the account turned off.
  expect((await api(`/webhooks/${webhookId}`, { method: 'PATCH', body: { status: 'disabled' } })).status).toBe(200);
  expect((await api('/budgets', { body: { scope: 'account', limitCredits: 500 } })).status).toBeLessThan(300);
});

test('a console member made by the admin CLI signs in by email link and lands on the console; the app shows them a Console link', async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  await signInToConsole(page, developer);
  await expect(page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
  await page.getByRole('link', { name: 'Back to the app' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Console', exact: true })).toBeVisible();
  await context.close();
});

for (const [width, viewport] of Object.entries(WIDTHS) as Array<[keyof typeof WIDTHS, (typeof WIDTHS)[keyof typeof WIDTHS]]>) {
  test(`every console page at ${width} width (${viewport.width} px): title, h1, no horizontal scroll, axe, keyboard`, async ({ browser }) => {
    test.setTimeout(360_000);
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await signInToConsole(page, developer);
    for (const p of PAGES) {
      await page.goto(p.path());
      await expect(page.getByRole('heading', { level: 1 }), p.name).toHaveText(p.h1);
      await expect(page).toHaveTitle(/Console · Steward/);
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${p.name} is wider than the screen: ${overflow > 1 ? (await widerThanScreen(page)).join(' | ') : ''}`).toBeLessThanOrEqual(1);
      if (width === 'phone') {
        // Tap targets: the section links are at least 44 px tall.
        const small = await page.getByRole('navigation', { name: 'Console' }).getByRole('link').evaluateAll((links) => links.filter((a) => a.getBoundingClientRect().height < 44).length);
        expect(small, `${p.name}: section links under 44 px`).toBe(0);
      }
      await shoot(page, `${p.name}-${width}`);
      await checkPage(page);
    }
    await context.close();
  });
}

test('a viewer reads every page without a single change control', async ({ browser }) => {
  test.setTimeout(240_000);
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  await signInToConsole(page, viewer);
  const changes = /^(Create|Save|Engage|Release|Revoke|Delete|Register|Add|Fulfil|Dismiss|Resend|Remove|Top up|Send a test|Turn (on|off)|Use the deployment)/;
  for (const p of PAGES) {
    await page.goto(p.path());
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(p.h1);
    const buttons = await page.getByRole('main').getByRole('button').allTextContents();
    expect(buttons.filter((b) => changes.test(b.trim())), `${p.name} shows change controls to a viewer`).toEqual([]);
    // No field to type in, but the audit log's filters (which change nothing).
    if (p.name !== 'console-audit') await expect(page.getByRole('main').getByRole('textbox')).toHaveCount(0);
    await expect(page.getByRole('main').locator('form')).toHaveCount(p.name === 'console-audit' ? 1 : 0);
  }
  await checkPage(page);
  await context.close();
});

test('someone signed in who is not a console member gets the 404 page', async ({ browser }) => {
  test.setTimeout(120_000);
  const person = await newPerson('console-outsider');
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  const before = Date.now();
  await page.goto('/sign-in');
  await page.getByLabel('Work email').fill(person.email);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toContainText('Check your email');
  const link = /https?:\/\/\S+\/api\/auth\/callback\/email\S+/.exec((await mailTo(person.email, before)).text)![0];
  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Welcome');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Console', exact: true })).toHaveCount(0);
  const res = await page.goto('/console/kill-switch');
  expect(res?.status()).toBe(404);
  await context.close();
});
