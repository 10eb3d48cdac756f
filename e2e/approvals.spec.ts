import { expect, test, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { api, BASE, expectAccessible, expectKeyboardReachable, mailsTo, shoot, signInByEmail } from './support/harness';
import { sendEmailDirective } from './support/model-script';

/*
 * Issue 15, the hosted approvals page, in Chromium against the production server: a task's run
 * (the scripted model on loopback) stages an email, its owner signs in, edits the body on
 * /approvals and approves, and the loopback SMTP capture receives exactly the edited text, once.
 * Then the approval email's Reject link, which a mail scanner may open without effect, and the
 * page's accessibility.
 */

// Not serial: each test stands on beforeAll alone, so one failing does not hide the others (a
// failure restarts the worker, and beforeAll sets up a new owner).
const USER = `penny-${Date.now().toString(36)}@approvals-e2e.test`;
const BOB = 'bob@recipient-e2e.test';
const CAROL = 'carol@recipient-e2e.test';
let userId = '';
let assistantId = '';
let context: BrowserContext;
let page: Page;

const asUser = (p: string, opts: { method?: string; body?: unknown } = {}) => api(p, { ...opts, as: USER });
const normalize = (text: string) => text.replace(/\r\n/g, '\n');

/** Staging is manual (or time-boxed) for email from the assistant: the cart waits for the person. */
async function setEmailMode(cell: Record<string, unknown>) {
  const res = await asUser(`/users/${userId}/preferences/supervision/matrix`, { method: 'PATCH', body: { matrix: { email_as_assistant: cell } } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

let directiveSeq = 0;
/** A task whose run stages one email (the scripted model calls send_email), and the cart it ends with. */
async function stagedCart(title: string, email: { to: string[]; subject: string; body: string }) {
  const created = await asUser('/tasks', { body: { title, assistant: assistantId } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const taskId = created.body.task.id as string;
  const message = `Please send this email. ${sendEmailDirective({ id: `${Date.now()}-${directiveSeq++}`, ...email })}`;
  const processed = await asUser(`/tasks/${taskId}/process`, { body: { message } });
  expect(processed.status, JSON.stringify(processed.body)).toBe(200);
  let cart: any;
  await expect
    .poll(
      async () => {
        cart = (await asUser('/portal/carts')).body?.carts?.find((c: { taskId: string }) => c.taskId === taskId);
        return cart?.status ?? null;
      },
      { timeout: 30_000, message: `the run of "${title}" stages a cart waiting for the user` },
    )
    .toMatch(/^(pending_approval|time_boxed)$/);
  return cart as { id: string; taskId: string; contentHash: string; status: string; dispatches: Array<{ body: string }> };
}

const cartOf = async (cartId: string) => (await asUser(`/portal/carts/${cartId}`)).body.cart;
const card = (p: Page, title: string): Locator => p.getByRole('article', { name: title });

/** The approval email of a task (subject "Approval needed: <title>"), its /approvals link and its Reject link. */
async function approvalEmail(title: string) {
  let found: { text: string } | undefined;
  await expect
    .poll(() => (found = mailsTo(USER).find((m) => m.subject === `Approval needed: ${title}`)) !== undefined, { timeout: 30_000, message: `the approval email of "${title}"` })
    .toBe(true);
  const text = normalize(found!.text);
  const reject = new RegExp(`${BASE.replace(/[.:/]/g, '\\$&')}/approvals/reject\\?token=[A-Za-z0-9_%-]+`).exec(text)?.[0];
  return { text, reject: reject! };
}

async function newSignedOutPage(browser: Browser) {
  const ctx = await browser.newContext();
  return { ctx, page: await ctx.newPage() };
}

test.beforeAll(async ({ browser }) => {
  const provisioned = await api('/users/provision', { body: { email: USER, firstName: 'Penny', lastName: 'Owner' } });
  expect(provisioned.status, JSON.stringify(provisioned.body)).toBeLessThan(300);
  userId = provisioned.body.user.id;
  for (const [path, method, body] of [
    ['/profile', 'PATCH', { timezone: 'Europe/Paris' }],
    [`/users/${userId}/preferences/scheduling`, 'PUT', { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } }],
    ['/onboarding/mark-onboarded', 'POST', {}],
  ] as const) expect((await asUser(path, { method, body })).status).toBe(200);
  const hired = await asUser(`/users/${userId}/assistants`, { body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  assistantId = hired.body.assistant.id;
  // Released at once after approval (no undo delay), so the test sees the send.
  await setEmailMode({ mode: 'manual', undoDelaySec: 0 });
  context = await browser.newContext();
  page = await context.newPage();
  await signInByEmail(page, USER);
});

test.afterAll(async () => {
  await context?.close();
});

test('signed out, /approvals sends people to sign in and back', async ({ browser }) => {
  const anon = await newSignedOutPage(browser);
  await anon.page.goto('/approvals');
  await expect(anon.page).toHaveURL(/\/sign-in\?returnTo=%2Fapprovals$/);
  await anon.ctx.close();
});

test('a staged email: the owner edits the body on /approvals and approves; SMTP receives exactly the edited text, once', async () => {
  test.setTimeout(120_000);
  // The home page leads to the approvals.
  await page.goto('/');
  await page.getByRole('link', { name: 'Approvals' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Approvals');

  const original = 'Hi Bob,\n\nDinner on Friday at 8?\n    Ada, for Penny';
  const cart = await stagedCart('Write to Bob', { to: [BOB], subject: 'Dinner', body: original });
  expect(cart.status).toBe('pending_approval');
  await page.goto('/approvals');
  const bob = card(page, 'Write to Bob');
  await expect(bob.getByTestId('cart-status')).toHaveText('waiting for your approval');
  // Shown exactly as it will be sent: sender, recipient, subject, the body with its line breaks and spaces.
  await expect(bob).toContainText(`To${BOB}`);
  await expect(bob).toContainText('SubjectDinner');
  await expect(bob).toContainText(/From\S+@/);
  // The assistant's branding line (brandingOnMessages, on by default) is part of what is sent, so it is shown.
  expect(cart.dispatches[0].body).toBe(`${original}\n\n-- \nSent by Ada, AI assistant to Penny Owner.`);
  expect(await bob.getByTestId('dispatch-body').evaluate((el) => (el as HTMLElement).innerText)).toBe(cart.dispatches[0].body);
  await expect(bob.getByTestId('content-hash')).toHaveText(cart.contentHash);
  await shoot(page, 'approvals-pending');

  // Keyboard only: open the editor, replace the body, save.
  await bob.getByRole('button', { name: /^Edit the email to / }).focus();
  await page.keyboard.press('Enter');
  await expect(bob.getByLabel('Subject')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(bob.getByLabel('Body')).toBeFocused();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  const edited = 'Hi Bob,\n\nSaturday suits me better: 7 pm?\n\nAda, for Penny';
  await page.keyboard.type(edited);
  await expectAccessible(page);
  await shoot(page, 'approvals-editing');
  await page.keyboard.press('Tab');
  await expect(bob.getByRole('button', { name: 'Save edit' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(bob.getByRole('status')).toContainText('Saved your edit as a new version');
  await expect(bob.getByRole('button', { name: /^Edit the email to / })).toBeFocused();

  // A new version: the hash shown is the API's new one.
  const after = await cartOf(cart.id);
  expect(after.contentHash).not.toBe(cart.contentHash);
  expect(after.dispatches[0]).toMatchObject({ body: edited, editedByUser: true });
  await expect(bob.getByTestId('content-hash')).toHaveText(after.contentHash);
  expect(await bob.getByTestId('dispatch-body').evaluate((el) => (el as HTMLElement).innerText)).toBe(edited);

  const before = Date.now();
  await bob.getByRole('button', { name: /^Approve and send/ }).focus();
  await page.keyboard.press('Enter');
  await expect(bob.getByRole('status')).toContainText('Write to Bob');
  // The outcome, as the server reports it.
  await expect(bob.getByTestId('cart-status')).toHaveText('sent', { timeout: 30_000 });
  expect((await cartOf(cart.id)).status).toBe('executed');
  await shoot(page, 'approvals-sent');

  // Exactly the edited text, exactly once.
  await expect.poll(() => mailsTo(BOB, before).length, { timeout: 15_000 }).toBe(1);
  await page.waitForTimeout(1500);
  const received = mailsTo(BOB);
  expect(received).toHaveLength(1);
  expect(received[0].subject).toBe('Dinner');
  expect(normalize(received[0].text)).toContain(edited);
  expect(normalize(received[0].text)).not.toContain('Friday');
});

test('the approval email links to /approvals; its Reject link is safe to prefetch and rejects only from the page’s button', async ({ browser }) => {
  test.setTimeout(90_000);
  const body = 'Hi Carol,\nthe report is attached tomorrow.';
  const cart = await stagedCart('Write to Carol', { to: [CAROL], subject: 'Report', body });
  const mail = await approvalEmail('Write to Carol');
  expect(mail.text).toContain(`${BASE}/approvals\n`);
  expect(mail.text).toContain(`Email to ${CAROL}: "Report"`);
  expect(mail.reject).toBeTruthy();

  // A mail scanner fetches the link: nothing happens.
  const scanned = await fetch(mail.reject);
  expect(scanned.status).toBe(200);
  expect((await cartOf(cart.id)).status).toBe('pending_approval');

  // Opened in a browser that is not signed in: it shows what would be rejected, and rejects only on the button.
  const anon = await newSignedOutPage(browser);
  await anon.page.goto(mail.reject);
  await expect(anon.page.getByRole('heading', { level: 1 })).toHaveText('Reject staged actions');
  expect(cart.dispatches[0].body.startsWith(body)).toBe(true);
  await expect(anon.page.getByTestId('dispatch-body')).toHaveText(cart.dispatches[0].body);
  await expect(anon.page.locator('main')).toContainText(CAROL);
  expect((await cartOf(cart.id)).status).toBe('pending_approval');
  await expectAccessible(anon.page);
  await expectKeyboardReachable(anon.page);
  await shoot(anon.page, 'approvals-reject');
  await anon.page.getByRole('button', { name: /^Reject/ }).focus();
  await anon.page.keyboard.press('Enter');
  await expect(anon.page.getByRole('status')).toContainText('Rejected');
  expect((await cartOf(cart.id)).status).toBe('rejected');
  expect(mailsTo(CAROL)).toHaveLength(0);

  // Once only; a link that was never issued says so.
  await anon.page.goto(mail.reject);
  await expect(anon.page.getByRole('status')).toContainText('already used');
  await anon.page.goto('/approvals/reject?token=rj_never-issued');
  await expect(anon.page.getByRole('status')).toContainText('not valid');
  await expectAccessible(anon.page);
  await anon.ctx.close();
});

test('/approvals with a time-boxed cart: a countdown that speaks on demand, axe-clean, every control reachable by keyboard', async () => {
  test.setTimeout(90_000);
  await setEmailMode({ mode: 'time-boxed', timeBoxedWindowMin: 45 });
  const boxed = await stagedCart('Remind Dan', { to: ['dan@recipient-e2e.test'], subject: 'Reminder', body: 'Dan,\nthe meeting moved to 3 pm.' });
  expect(boxed.status).toBe('time_boxed');
  await setEmailMode({ mode: 'manual', undoDelaySec: 0 });
  await stagedCart('Thank Erin', { to: ['erin@recipient-e2e.test'], subject: 'Thanks', body: 'Erin,\nthanks for your help!' });

  await page.goto('/approvals');
  const dan = card(page, 'Remind Dan');
  await expect(dan.getByTestId('cart-status')).toHaveText(/time-boxed/);
  const timer = dan.getByRole('timer');
  await expect(timer).toHaveText(/^(44|45) min \d\d s$/);
  const first = await timer.textContent();
  await expect(timer).not.toHaveText(first!, { timeout: 5_000 });
  await dan.getByRole('button', { name: /^Say the time left/ }).focus();
  await page.keyboard.press('Enter');
  await expect(dan.locator('[aria-live="polite"]').filter({ hasText: 'left before' })).toHaveText(/min \d\d s left before “Remind Dan” is sent/);
  await expect(card(page, 'Thank Erin').getByTestId('cart-status')).toHaveText('waiting for your approval');

  await expectAccessible(page);
  await expectKeyboardReachable(page);
  await shoot(page, 'approvals');
});
