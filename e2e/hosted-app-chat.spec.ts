import { expect, test } from '@playwright/test';
import { signInByEmail } from './support/harness';
import { newPerson } from './support/hosted-app';
import { slowReplyDirective, slowReplyText } from './support/model-script';

/*
 * Issue 29, chat: the person starts a chat with their assistant and the reply streams into the
 * page token by token from /chats/{chatId}/process (SSE); a reload in the middle of the turn
 * resumes the stream with Last-Event-ID, and the reply ends exactly as the model wrote it, with
 * no text lost or repeated.
 */

test('a streamed reply survives a reload in the middle, resumed with Last-Event-ID', async ({ browser }) => {
  test.setTimeout(90_000);
  const person = await newPerson('chat');
  const context = await browser.newContext();
  const page = await context.newPage();
  // A failure inside the page is named in the report, not only its consequence.
  page.on('pageerror', (e) => console.log(`page error: ${e.message}\n${e.stack}`));
  page.on('console', (m) => m.type() === 'error' && console.log(`console: ${m.text()}`));
  page.on('response', (r) => r.status() >= 400 && console.log(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`));
  await signInByEmail(page, person.email);

  await page.goto('/chats');
  await expect(page.getByText('No chats yet.')).toBeVisible();
  await page.getByLabel('Title (optional)').fill('Weekend plans');
  await page.getByRole('button', { name: 'Start a chat' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Weekend plans');
  await expect(page.getByText('With Ada', { exact: true })).toBeVisible();

  const words = 160;
  const full = slowReplyText(words);
  await page.getByLabel('Message Ada').fill(`Tell me a long story. ${slowReplyDirective({ id: `${Date.now()}`, words, delayMs: 60 })}`);
  await page.getByRole('button', { name: 'Send' }).click();
  const streaming = page.getByTestId('streaming-text');
  // Token by token: a prefix of the reply, growing.
  await expect(streaming).toContainText('w010', { timeout: 30_000 });
  const before = (await streaming.innerText()).trim();
  expect(full.startsWith(before)).toBe(true);
  expect(before.length).toBeLessThan(full.length);

  const resumed: string[] = [];
  page.on('request', (r) => {
    if (/\/chats\/[^/]+\/runs\/[^/]+\/events$/.test(new URL(r.url()).pathname)) resumed.push(r.headers()['last-event-id'] ?? '');
  });
  await page.reload();
  // Straight after the reload the page shows what it had, then goes on from there.
  await expect(page.getByTestId('streaming-reply')).toBeVisible();
  const afterReload = (await streaming.innerText()).trim();
  expect(full.startsWith(afterReload)).toBe(true);
  expect(afterReload.length).toBeGreaterThanOrEqual(before.length);
  for (let i = 0; i < 5; i++) {
    const now = (await streaming.innerText().catch(() => full)).trim();
    expect(full.startsWith(now), `after the reload the text is still the reply's beginning: ${now.slice(-60)}`).toBe(true);
    await page.waitForTimeout(300);
  }
  expect(resumed.length).toBeGreaterThan(0);
  expect(Number(resumed[0])).toBeGreaterThan(1);

  // The reply lands once, exactly as the model wrote it.
  const replies = page.getByRole('list', { name: 'Conversation' }).locator('[data-role="assistant"]');
  await expect(replies).toHaveCount(1, { timeout: 30_000 });
  await expect(replies.first().getByTestId('message-content')).toHaveText(full);
  await expect(page.getByTestId('streaming-reply')).toHaveCount(0);
  await page.reload();
  await expect(replies).toHaveCount(1);
  await expect(replies.first().getByTestId('message-content')).toHaveText(full);
  await context.close();
});
