import { expect, test, type Page } from '@playwright/test';
import { api, mailTo } from './support/harness';
import { admin, newPerson } from './support/hosted-app';
import { captureScreens, type Shot } from './support/screens';

/*
 * docs/screens/console-*.png, taken on demand (not by npm test; e2e/support/screens.ts):
 *
 *   npm run screens
 *
 * A console owner with something on every page: people and their tasks, a phone-line request, a
 * webhook endpoint, a budget, an approval lock, an account key, a second member.
 */

test.describe.configure({ mode: 'serial' });

const owner = `maya.console-${Date.now().toString(36)}@northwind-console.test`;
let webhookId = '';

async function signIn(page: Page) {
  const before = Date.now();
  await page.goto('/console');
  await page.getByLabel('Work email').fill(owner);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toContainText('Check your email');
  let link = '';
  await expect.poll(async () => (link = /https?:\/\/\S+\/api\/auth\/callback\/email\S+/.exec((await mailTo(owner, before)).text)?.[0] ?? '')).not.toBe('');
  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Overview');
}

const SHOTS: Shot[] = [
  { name: 'console-overview', path: '/console' },
  { name: 'console-models', path: '/console/models' },
  { name: 'console-keys', path: '/console/keys' },
  { name: 'console-certificates', path: '/console/certificates' },
  { name: 'console-kill-switch', path: '/console/kill-switch' },
  { name: 'console-policy', path: '/console/policy' },
  { name: 'console-limits', path: '/console/limits' },
  { name: 'console-phone-lines', path: '/console/phone-lines' },
  { name: 'console-chat-apps', path: '/console/chat-apps' },
  { name: 'console-webhooks', path: '/console/webhooks' },
  { name: 'console-webhook', path: () => `/console/webhooks/${webhookId}` },
  { name: 'console-audit', path: '/console/audit' },
  { name: 'console-members', path: '/console/members' },
];

test('console screens at 1280 and 390 px', async ({ browser }) => {
  test.setTimeout(300_000);
  const account = process.env.E2E_ACCOUNT_ID!;
  expect(admin('add-console-member', '--account', account, '--email', owner, '--role', 'owner')).toMatchObject({ ok: true });
  expect(admin('add-console-member', '--account', account, '--email', `sam.ops-${Date.now().toString(36)}@northwind-console.test`, '--role', 'viewer')).toMatchObject({ ok: true });
  const person = await newPerson('lena-park');
  expect((await api('/phone-line-requests', { as: person.email, body: { requestedChannels: { sms: true, voice: true }, notes: 'A Berlin number, please' } })).status).toBe(201);
  const hook = await api('/webhooks', { body: { url: 'http://127.0.0.1:9/northwind/steward-events', description: 'CRM sync', events: ['task.status_changed', 'cart.executed'] } });
  webhookId = hook.body.webhook.id;
  await api(`/webhooks/${webhookId}/test`, { method: 'POST' });
  await api('/budgets', { body: { scope: 'account', limitCredits: 2500 } });
  await api('/api-keys', { body: { label: 'Production backend' } });
  admin('set-approval-lock', '--account', account, '--action', 'email_as_assistant', '--mode', 'manual');
  await captureScreens(browser, SHOTS, { signIn });
});
