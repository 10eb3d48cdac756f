import { expect, test, type Page } from '@playwright/test';
import { expectAccessible, signInByEmail } from './support/harness';
import { as, expectPhoneFriendly, newPerson, startTask, taskReaches, WIDTHS, type Person } from './support/hosted-app';
import { askUserDirective, sendEmailDirective } from './support/model-script';

/*
 * Issue 45, the inbox: one list of what waits on the person, each thing once (a staged email is
 * not also a "question"), most pressing first; decided with the keyboard alone (j/k, a, e, r, ?);
 * approved together; live (an item staged while the page is open shows up without a reload); and
 * on a phone, a row opens a sheet whose content and buttons are on the first screen.
 */

test.describe.configure({ mode: 'serial' });

let person: Person;
const id = () => `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
const list = (p: Page) => p.getByRole('list', { name: 'What needs you' });
const rowOf = (p: Page, title: string) => list(p).getByRole('listitem').filter({ has: p.getByRole('heading', { name: title, exact: true }) });
/** The row of a cart waiting for approval (after its approval, its task may still wait on the person in its own row). */
const toApprove = (p: Page, title: string) => rowOf(p, title).filter({ hasText: 'To approve' });

async function stageEmail(title: string, to: string, subject: string, body: string) {
  const taskId = await startTask(person, title, sendEmailDirective({ id: id(), to: [to], subject, body }));
  await taskReaches(person, taskId, (t) => t.pendingCart !== null, `“${title}” stages its email`);
  return (await as(person)(`/tasks/${taskId}`)).body.task.pendingCart.id as string;
}
const cartStatus = async (cartId: string) => (await as(person)(`/portal/carts/${cartId}`)).body.cart.status as string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  person = await newPerson('inbox');
  expect((await as(person)(`/users/${person.id}/preferences/supervision/matrix`, { method: 'PATCH', body: { matrix: { email_as_assistant: { mode: 'manual' } } } })).status).toBe(200);
  await stageEmail('Write to the landlord', 'landlord@recipient-e2e.test', 'The boiler', 'Hello,\n\nThe boiler is broken again.\n\nHana');
  await stageEmail('Thank Priya', 'priya@recipient-e2e.test', 'Thank you', 'Dear Priya,\n\nThank you for the introduction.\n\nHana');
  const asking = await startTask(person, 'Book the dentist', askUserDirective({ id: id(), question: 'Tuesday 10:30 or Thursday 16:00?' }));
  await taskReaches(person, asking, (t) => t.status === 'awaiting_user_input', 'the run asks');
});

test('each thing that waits is listed once: two emails to approve and one question, and the count says three', async ({ browser }) => {
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  await signInByEmail(page, person.email);
  await page.goto('/inbox');
  await expect(list(page).getByRole('listitem')).toHaveCount(3);
  await expect(rowOf(page, 'Write to the landlord')).toContainText('To approve');
  await expect(rowOf(page, 'Write to the landlord')).toContainText('Email to landlord@recipient-e2e.test');
  await expect(rowOf(page, 'Book the dentist')).toContainText('Question');
  // No staged email is also offered as a question with an answer box.
  await expect(list(page).getByRole('listitem').filter({ hasText: 'Question' })).toHaveCount(1);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByTestId('needs-me-count')).toHaveText(/^3/);
  expect((await as(person)('/tasks?perPage=50')).status).toBe(200);
  await expectAccessible(page);
  await context.close();
});

test('keyboard only: j/k move, e edits, a approves, r cancels after a confirmation, ? lists the shortcuts', async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  await signInByEmail(page, person.email);
  await page.goto('/inbox');
  await expect(list(page).getByRole('listitem')).toHaveCount(3);
  const panel = page.getByRole('complementary', { name: 'Selected item' });

  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
  await page.keyboard.press('Escape');

  // Move to the landlord's email with j/k; the panel follows the selection.
  for (let i = 0; i < 3 && !(await panel.getByRole('heading', { level: 2, name: 'Write to the landlord' }).isVisible()); i++) await page.keyboard.press('j');
  for (let i = 0; i < 3 && !(await panel.getByRole('heading', { level: 2, name: 'Write to the landlord' }).isVisible()); i++) await page.keyboard.press('k');
  await expect(panel.getByRole('heading', { level: 2, name: 'Write to the landlord' })).toBeVisible();
  const landlord = await (await as(person)('/portal/carts?status=pending_approval')).body.carts.find((c: { taskTitle: string }) => c.taskTitle === 'Write to the landlord');

  // e opens the editor on the email's text; an edit is saved as a new version.
  await page.keyboard.press('e');
  await expect(panel.getByLabel('Subject')).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('End');
  await page.keyboard.type('\nThank you.');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(panel.getByRole('status')).toContainText('Saved your edit as a new version');
  await expect.poll(async () => (await as(person)(`/portal/carts/${landlord.id}`)).body.cart.dispatches[0].body).toContain('Thank you.');

  // a approves the selected email (with the version now shown): it leaves the list and is sent.
  await page.keyboard.press('Escape');
  await page.locator('body').focus();
  await page.keyboard.press('a');
  await expect(page.getByText('Approved “Write to the landlord”: it is being sent.', { exact: true })).toBeVisible();
  await expect(toApprove(page, 'Write to the landlord')).toHaveCount(0);
  await expect.poll(() => cartStatus(landlord.id), { timeout: 30_000 }).toMatch(/approved|executing|executed/);

  // r on the next email asks first; Enter confirms; nothing is sent.
  const priya = (await (await as(person)('/portal/carts?status=pending_approval')).body.carts).find((c: { taskTitle: string }) => c.taskTitle === 'Thank Priya');
  for (let i = 0; i < 3 && !(await panel.getByRole('heading', { level: 2, name: 'Thank Priya' }).isVisible()); i++) await page.keyboard.press('j');
  for (let i = 0; i < 3 && !(await panel.getByRole('heading', { level: 2, name: 'Thank Priya' }).isVisible()); i++) await page.keyboard.press('k');
  await page.keyboard.press('r');
  const confirm = page.getByRole('dialog', { name: 'Cancel and send nothing?' });
  await expect(confirm).toBeVisible();
  await expect(confirm.getByRole('button', { name: 'Cancel: send nothing' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Cancelled “Thank Priya”: nothing was sent.', { exact: true })).toBeVisible();
  await expect.poll(() => cartStatus(priya.id)).toBe('cancelled');
  await context.close();
});

test('live: an email staged while the inbox is open appears without a reload, and several are approved together', async ({ browser }) => {
  test.setTimeout(150_000);
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  await signInByEmail(page, person.email);
  await page.goto('/inbox');
  await expect(rowOf(page, 'Book the dentist')).toBeVisible();
  const marker = await page.evaluate(() => ((window as unknown as { __stay: number }).__stay = Math.random()));
  const one = await stageEmail('Confirm the plumber', 'plumber@recipient-e2e.test', 'Friday', 'Friday at 9 works.');
  await expect(rowOf(page, 'Confirm the plumber')).toBeVisible({ timeout: 10_000 });
  const two = await stageEmail('Reply to the school', 'office@school-e2e.test', 'Trip form', 'The form is signed.');
  await expect(rowOf(page, 'Reply to the school')).toBeVisible({ timeout: 10_000 });
  // The same document all along: no reload happened.
  expect(await page.evaluate(() => (window as unknown as { __stay: number }).__stay)).toBe(marker);

  await page.getByRole('button', { name: /^Select all 2 to approve/ }).click();
  await page.getByRole('button', { name: 'Approve 2 selected' }).click();
  await expect(page.getByText('Approved 2 items: they are being sent.', { exact: true })).toBeVisible();
  await expect.poll(async () => [await cartStatus(one), await cartStatus(two)].every((s) => /approved|executing|executed/.test(s)), { timeout: 30_000 }).toBe(true);
  await expect(toApprove(page, 'Confirm the plumber')).toHaveCount(0);
  await context.close();
});

test('on a phone: rows fit, targets are 44 px, and an opened email shows its text and buttons on the first screen', async ({ browser }) => {
  test.setTimeout(120_000);
  await stageEmail('Answer the neighbour', 'neighbour@recipient-e2e.test', 'The hedge', 'Hi,\n\nSaturday morning is fine for the hedge.\n\nHana');
  const context = await browser.newContext({ viewport: WIDTHS.phone, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await signInByEmail(page, person.email);
  await page.goto('/inbox');
  await expect(rowOf(page, 'Answer the neighbour')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ })).toBeVisible();
  await expectPhoneFriendly(page);
  await expectAccessible(page);

  await rowOf(page, 'Answer the neighbour').getByRole('button', { name: 'Answer the neighbour', exact: true }).tap();
  const sheet = page.getByRole('dialog');
  await expect(sheet.getByTestId('dispatch-body')).toContainText('Saturday morning is fine');
  const approve = sheet.getByRole('button', { name: /^Approve and send/ });
  await expect(approve).toBeVisible();
  // The sheet slides up: measured once it has come to rest.
  await expect
    .poll(async () => {
      const b = await approve.boundingBox();
      return b ? b.y + b.height : Infinity;
    }, { message: 'the Approve button is on the first screen' })
    .toBeLessThanOrEqual(WIDTHS.phone.height);
  expect((await approve.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await expectAccessible(page);
  await approve.tap();
  await expect(sheet.getByTestId('cart-status')).toHaveText(/approved|being sent|sent/, { timeout: 30_000 });
  await context.close();
});
