import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { api, expectAccessible, mailsTo, mailTo, signInByEmail } from './support/harness';
import { admin, as, newPerson, startTask, type Person } from './support/hosted-app';
import { sendEmailDirective } from './support/model-script';

/*
 * Issue 29, the person's settings and what was sent: a cell of the autonomy matrix changed and a
 * cell locked by the company refusing to loosen; an email address verified with the 6-digit code
 * read from the SMTP capture; an API key created (shown once) and revoked; an email sent at once
 * by the assistant undone from "Sent" before it reaches the SMTP capture. Issue 33: an organization
 * admin switches a capability off in the organization's settings.
 */

test.describe.configure({ mode: 'serial' });

let person: Person;
let context: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  person = await newPerson('settings');
  context = await browser.newContext();
  page = await context.newPage();
  await signInByEmail(page, person.email);
});
test.afterAll(async () => {
  await context?.close();
});

const row = (p: Page, action: string) => p.getByRole('row').filter({ has: p.getByRole('rowheader', { name: new RegExp(`^${action}`) }) });

test('autonomy: a cell changes; a cell the company locked refuses to loosen and says why', async () => {
  admin('set-approval-lock', '--account', process.env.E2E_ACCOUNT_ID!, '--action', 'website', '--mode', 'manual');
  await page.goto('/settings/autonomy');
  const calendar = row(page, 'Calendar');
  await calendar.getByLabel('Calendar: when to send').selectOption('manual');
  await calendar.getByRole('button', { name: 'Save Calendar' }).click();
  await expect(page.getByText('Calendar: saved.', { exact: true })).toBeVisible();
  await expect(calendar.getByText('your setting')).toBeVisible();
  const matrix = (await as(person)(`/users/${person.id}/preferences/supervision/matrix`)).body.supervisionMatrix;
  expect(matrix.matrix.calendar.mode).toBe('manual');

  const website = row(page, 'Website');
  await expect(website).toContainText('Locked by your company at “Only when I approve”: you can make it stricter, not looser.');
  await website.getByLabel('Website: when to send').selectOption('auto');
  await website.getByRole('button', { name: 'Save Website' }).click();
  await expect(page.getByRole('region', { name: /Notifications/ }).getByText(/would loosen a locked cell/).first()).toBeVisible();
  const after = (await as(person)(`/users/${person.id}/preferences/supervision/matrix`)).body.supervisionMatrix;
  expect(after.matrix.website.mode).toBe('manual');
});

test('notifications: Slack turned off for notices is saved, and the preference says so', async () => {
  await page.goto('/settings');
  // The settings section (the toasts' live region is named Notifications too).
  const section = page.locator('section[aria-labelledby="notifications-title"]');
  const slack = section.getByRole('group', { name: /Notices may reach me by/ }).getByRole('checkbox', { name: 'Slack' });
  await expect(slack).toBeChecked();
  await slack.uncheck();
  await section.getByRole('button', { name: 'Save notifications' }).click();
  await expect(page.getByText('Notification preferences saved.', { exact: true })).toBeVisible();
  const prefs = (await as(person)('/profile')).body.user.preferences;
  expect(prefs).toMatchObject({ slack: { enabled: false }, email: { enabled: true }, teams: { enabled: true } });
  await page.reload();
  await expect(page.locator('section[aria-labelledby="notifications-title"]').getByRole('checkbox', { name: 'Slack' })).not.toBeChecked();
});

test('identifiers: a second email is verified with the code from its mail', async () => {
  const address = `second-${Date.now().toString(36)}@hosted-e2e.test`;
  await page.goto('/settings/identifiers');
  await page.getByLabel('Email address').fill(address);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  const item = page.getByRole('list', { name: 'Your emails and phones' }).getByRole('listitem').filter({ hasText: address });
  await expect(item).toContainText('Not verified');
  const before = Date.now();
  await item.getByRole('button', { name: `Send a verification code to ${address}` }).click();
  const mail = await mailTo(address, before);
  expect(mail.subject).toBe('Your verification code');
  const code = /\b(\d{6})\b/.exec(mail.text)![1];
  await item.getByLabel(`Code sent to ${address}`).fill(code);
  await item.getByRole('button', { name: `Verify ${address}` }).click();
  await expect(page.getByText(`${address} is verified.`, { exact: true })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Your emails and phones' }).getByRole('listitem').filter({ hasText: address })).toContainText('Verified');
});

test('identifiers: a verified phone chooses how texts to it go; WhatsApp is offered only once the number used it', async () => {
  const phone = `+1628555${String(Date.now()).slice(-4)}`;
  const added = await api('/identifiers', { body: { type: 'phone', value: phone, userId: person.id, verified: true } });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  await page.goto('/settings/identifiers');
  const item = page.getByRole('list', { name: 'Your emails and phones' }).getByRole('listitem').filter({ hasText: phone });
  const choice = item.getByLabel(`Texts to ${phone} go by`);
  await expect(choice.locator('option')).toHaveText(['As my notice setting says', 'SMS']);
  await choice.selectOption('sms');
  await item.getByRole('button', { name: `Save how texts to ${phone} go` }).click();
  await expect(page.getByText(`Texts to ${phone} now go by SMS.`, { exact: true })).toBeVisible();
  const listed = (await as(person)('/identifiers')).body.identifiers.find((i: { value: string }) => i.value === phone);
  expect(listed.preferredTextPlatform).toBe('sms');
});

test('API keys: created with its scopes and shown once, then revoked after a confirmation', async () => {
  await page.goto('/settings/api-keys');
  await page.getByLabel('Name').fill('My script');
  await page.getByLabel('Access').selectOption('read');
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Your new API key' });
  const key = (await dialog.getByTestId('new-api-key').innerText()).trim();
  expect(key).toMatch(/^ak_live_[0-9a-f]{64}$/);
  expect((await fetch(`${process.env.E2E_BASE_URL}/api/me`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
  await dialog.getByRole('button', { name: 'I have copied it' }).click();
  await expect(dialog).toHaveCount(0);
  const item = page.getByRole('list', { name: 'Your API keys' }).getByRole('listitem').filter({ hasText: 'My script' });
  await expect(item).toContainText('read');
  await expect(page.getByText(key)).toHaveCount(0);
  await item.getByRole('button', { name: 'Revoke My script' }).click();
  await page.getByRole('dialog', { name: 'Revoke “My script”?' }).getByRole('button', { name: 'Revoke key' }).click();
  await expect(item).toContainText('Revoked');
  expect((await fetch(`${process.env.E2E_BASE_URL}/api/me`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(401);
});

test('sent: an email released at once is undone within its window and never reaches SMTP', async () => {
  test.setTimeout(90_000);
  const to = `undo-${Date.now().toString(36)}@recipient-e2e.test`;
  const cell = await as(person)(`/users/${person.id}/preferences/supervision/matrix`, { method: 'PATCH', body: { matrix: { email_as_assistant: { mode: 'auto', undoDelaySec: 120 } } } });
  expect(cell.status, JSON.stringify(cell.body)).toBe(200);
  const taskId = await startTask(person, 'Thank Bob', `Send it. ${sendEmailDirective({ id: `${Date.now()}`, to: [to], subject: 'Thanks', body: 'Thank you, Bob.' })}`);
  let cartId = '';
  await expect
    .poll(
      async () => {
        cartId = (await findHeldCart(person, taskId)) ?? '';
        return cartId !== '';
      },
      { timeout: 30_000, message: 'the email is released and held for its undo window' },
    )
    .toBe(true);

  await page.goto('/sent');
  const item = page.getByRole('list', { name: 'Sent by your assistants' }).getByRole('listitem').filter({ hasText: 'Thank Bob' }).first();
  await expect(item).toContainText('waiting out its undo window');
  await item.getByRole('button', { name: new RegExp(`^Undo Email to ${to}`) }).click();
  await expect(page.getByText(`Undone: Email to ${to}: “Thanks” was not sent.`, { exact: true })).toBeVisible();
  await expect(item).toContainText('undone: not sent');
  const snaps = (await as(person)(`/portal/carts/${cartId}/snapshots`)).body.snapshots;
  expect(snaps[0].deliveryState).toBe('undone');
  await page.waitForTimeout(3_000);
  expect(mailsTo(to)).toEqual([]);
});

test('capabilities: an organization admin switches one off in the Capabilities section, and it is saved', async ({ browser }) => {
  const orgAdmin = await newPerson('caps-admin');
  const org = (await api('/organizations', { body: { name: `Caps E2E ${Date.now().toString(36)}` } })).body.organization;
  expect((await api(`/users/${orgAdmin.id}`, { method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } })).status).toBe(200);
  const adminContext = await browser.newContext();
  try {
    const p = await adminContext.newPage();
    await signInByEmail(p, orgAdmin.email);
    await p.goto(`/organizations/${org.id}/capabilities`);
    const section = p.getByRole('region', { name: 'Capabilities' });
    await expect(section).toBeVisible();
    const browserRow = section.getByRole('row').filter({ has: p.getByRole('rowheader', { name: /^Browser automation/ }) });
    await expect(browserRow.getByRole('cell').last()).toHaveText('On');
    await section.getByLabel('Browser automation', { exact: true }).selectOption('off');
    await section.getByRole('button', { name: 'Save capabilities' }).click();
    await expect(section.getByRole('status')).toHaveText('Saved');

    await p.reload();
    await expect(section.getByLabel('Browser automation', { exact: true })).toHaveValue('off');
    await expect(browserRow.getByRole('cell').last()).toHaveText('Off');
    await expect(section.getByRole('button', { name: 'Save capabilities' })).toBeDisabled();
    const saved = await api(`/organizations/${org.id}/settings/capabilities`);
    expect(saved.body).toMatchObject({ capabilities: { browserAutomation: 'off', browserAutomationLocked: false }, effective: { capabilities: { browserAutomation: 'off' } } });
    await p.waitForLoadState('networkidle');
    await expectAccessible(p);
  } finally {
    await adminContext.close();
  }
});

/** The cart whose email the task's run staged, once it is released and held for undo (its send_email tool result names the cart). */
async function findHeldCart(p: Person, taskId: string): Promise<string | null> {
  const { body } = await as(p)(`/tasks/${taskId}/activities?limit=100`);
  for (const a of body.activities as Array<{ toolCall: { name: string; output: any } | null }>) {
    const cartId = a.toolCall?.name === 'send_email' ? (a.toolCall.output?.cartId as string | undefined) : undefined;
    if (!cartId) continue;
    const snaps = (await as(p)(`/portal/carts/${cartId}/snapshots`)).body?.snapshots ?? [];
    if (snaps.some((x: { deliveryState: string }) => x.deliveryState === 'held')) return cartId;
  }
  return null;
}
