import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { api, BASE, mailTo } from './support/harness';
import { admin, newPerson, WIDTHS } from './support/hosted-app';

/*
 * Changes made in the console are what the API then does, and the audit log says who made them:
 * the kill switch (423 on the API while engaged), a phone-line request fulfilled, a webhook
 * delivery resent to a real receiver, console members managed by an owner, the audit log filtered
 * and exported. A viewer's browser posting a change directly is refused by the server.
 */

test.describe.configure({ mode: 'serial' });

const stamp = Date.now().toString(36);
const owner = `console-owner-${stamp}@console-e2e.test`;
const viewer = `console-ro-${stamp}@console-e2e.test`;

/** A customer's endpoint on loopback: records every POST, answers 200. */
let received: Array<{ id: string; body: string }> = [];
let receiver: http.Server;
let receiverUrl = '';

async function signIn(page: Page, email: string, path: string, h1: string) {
  const before = Date.now();
  await page.goto(path);
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
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(h1);
}

/** The newest audit event of `action`, through the API. */
async function lastEvent(action: string) {
  const res = await api(`/audit-events?action=${action}&limit=1`);
  return res.body.events[0];
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ id: String(req.headers['webhook-id']), body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
  expect(admin('add-console-member', '--account', process.env.E2E_ACCOUNT_ID!, '--email', owner, '--role', 'owner')).toMatchObject({ ok: true });
  expect(admin('add-console-member', '--account', process.env.E2E_ACCOUNT_ID!, '--email', viewer, '--role', 'viewer')).toMatchObject({ ok: true });
});

test.afterAll(async () => {
  await new Promise<void>((r) => receiver.close(() => r()));
});

test('the kill switch engaged in the console answers 423 on the API, and released lets tasks through again', async ({ browser }) => {
  test.setTimeout(120_000);
  const person = await newPerson('console-kill');
  const task = (title: string) => api('/tasks', { as: person.email, body: { title, assistant: person.assistantId } });
  const context = await browser.newContext({ viewport: WIDTHS.phone });
  const page = await context.newPage();
  await signIn(page, owner, '/console/kill-switch', 'Kill switch');
  await page.getByRole('button', { name: 'Engage the kill switch' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Engage' }).click();
  await expect(page.getByRole('main').getByRole('status')).toContainText('Engaged');
  const frozen = await task('During the freeze');
  expect(frozen.status).toBe(423);
  expect(frozen.body.error_code).toBe('KILL_SWITCH_ENGAGED');
  const event = await lastEvent('kill_switch.changed');
  expect(event).toMatchObject({ actor: { type: 'user', email: owner }, changes: { after: { killSwitch: true } } });

  await page.getByRole('button', { name: 'Release the kill switch' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Release' }).click();
  await expect(page.getByRole('main').getByRole('status')).toContainText('Released');
  expect((await task('After the freeze')).status).toBe(201);
  await context.close();
});

test('a viewer’s browser posting a change is refused by the server, and nothing changes', async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  await signIn(page, viewer, '/console/kill-switch', 'Kill switch');
  await expect(page.getByRole('button', { name: /kill switch/ })).toHaveCount(0);
  const res = await page.request.post(`${BASE}/api/trpc/console.settings.setKillSwitch`, { data: { engaged: true }, headers: { origin: BASE, 'content-type': 'application/json' } });
  expect(res.status()).toBe(403);
  expect(JSON.stringify(await res.json())).toContain('console_role_required');
  await page.reload();
  await expect(page.getByRole('main').getByRole('status')).toContainText('Released');
  await context.close();
});

test('a phone-line request fulfilled in the console reaches its user', async ({ browser }) => {
  test.setTimeout(120_000);
  const person = await newPerson('console-line');
  expect((await api('/phone-line-requests', { as: person.email, body: { requestedChannels: { sms: true }, notes: 'Lyon please' } })).status).toBe(201);
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  await signIn(page, owner, '/console/phone-lines', 'Phone lines');
  const row = page.getByRole('row').filter({ hasText: person.email });
  await row.getByRole('button', { name: /^Fulfil/ }).click();
  const number = `+1628555${String(Date.now()).slice(-4)}`;
  await page.getByLabel('Number (E.164)').fill(number);
  await page.getByRole('button', { name: 'Assign number' }).click();
  await expect(page.getByText(`${number} assigned.`).first()).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByRole('row').filter({ hasText: person.email })).toHaveCount(0);
  const mine = await api('/phone-line-requests/mine', { as: person.email });
  expect(mine.body.request).toMatchObject({ status: 'fulfilled' });
  expect(await lastEvent('phone_line.assigned')).toMatchObject({ actor: { email: owner }, changes: { after: { number } } });
  await context.close();
});

test('a webhook delivery is resent from its log and arrives again, signed, with the same event', async ({ browser }) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  await signIn(page, owner, '/console/webhooks', 'Webhooks');
  await page.getByLabel('URL').fill(receiverUrl);
  await page.getByLabel('Description (optional)').fill('Receiver');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(page.getByTestId('webhook-secret')).toContainText('whsec_');
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await page.getByRole('link', { name: 'Receiver' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Receiver');
  await page.getByRole('button', { name: 'Send a test event' }).click();
  await expect.poll(() => received.length, { timeout: 60_000 }).toBe(1);
  await expect.poll(async () => (await page.reload(), await page.getByRole('table', { name: 'Delivery log' }).getByText('Delivered').count()), { timeout: 30_000 }).toBe(1);
  await page.getByRole('button', { name: /^Resend/ }).click();
  await expect.poll(() => received.length, { timeout: 60_000 }).toBe(2);
  expect(received[1]!.id).not.toBe(received[0]!.id);
  expect(JSON.parse(received[1]!.body)).toEqual(JSON.parse(received[0]!.body));
  expect(await lastEvent('webhook_delivery.resent')).toMatchObject({ actor: { email: owner } });
  // The endpoint the console added is the API's, and turned off there it is off for the API.
  const id = new URL(page.url()).pathname.split('/').at(-1)!;
  expect((await api(`/webhooks/${id}`)).body.webhook).toMatchObject({ url: receiverUrl, description: 'Receiver', status: 'enabled' });
  await page.getByRole('button', { name: 'Turn off' }).click();
  await expect(page.getByText('Endpoint turned off.', { exact: true })).toBeVisible();
  await expect.poll(async () => (await api(`/webhooks/${id}`)).body.webhook.status).toBe('disabled');
  await expect(page.getByRole('button', { name: /^Resend/ })).toHaveCount(0);
  // Nothing more for this receiver: later specs' events would only pile up retries.
  expect((await api(`/webhooks/${id}`, { method: 'DELETE' })).status).toBe(200);
  await context.close();
});

test('an owner adds, promotes and removes a console member; the audit log filters and exports it', async ({ browser }) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({ viewport: WIDTHS.desktop, acceptDownloads: true });
  const page = await context.newPage();
  await signIn(page, owner, '/console/members', 'Console members');
  const added = `console-new-${stamp}@console-e2e.test`;
  await page.getByLabel('Email').fill(added);
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Add member' }).click();
  const row = page.getByRole('row').filter({ hasText: added });
  await expect(row).toContainText('Viewer');
  await row.getByLabel(`Role of ${added}`).selectOption('developer');
  await row.getByRole('button', { name: /^Apply/ }).click();
  await expect(row).toContainText('Developer');
  await row.getByRole('button', { name: /^Remove/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
  await expect(page.getByRole('row').filter({ hasText: added })).toHaveCount(0);
  expect((await mailTo(added)).subject).toContain('console');

  await page.goto('/console/audit');
  await page.getByLabel('Action').selectOption('console_member.role_changed');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/action=console_member.role_changed/);
  await expect(page.getByRole('main').getByRole('row').filter({ hasText: owner })).toHaveCount(1);
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'CSV' }).click();
  const file = await (await download).path();
  const csv = readFileSync(file, 'utf8').trim().split('\r\n');
  expect(csv[0]).toBe('occurredAt,action,actorType,actorId,actorEmail,targetType,targetId,organizationId,ip,userAgent,requestId,changes');
  expect(csv.slice(1)).toHaveLength(1);
  expect(csv[1]).toContain(`console_member.role_changed,user,`);
  expect(csv[1]).toContain(owner);
  const json = await page.request.get(`${BASE}/console/audit/export?format=json&action=console_member.removed`);
  expect(json.headers()['content-disposition']).toMatch(/attachment; filename="audit-.*\.json"/);
  expect((await json.json()).events[0]).toMatchObject({ action: 'console_member.removed', actor: { email: owner } });
  await context.close();
});
