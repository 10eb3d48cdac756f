import { expect, test } from '@playwright/test';
import { mailsTo } from './support/harness';
import { newPerson } from './support/hosted-app';

/*
 * Continue pressed before the page's script has run (a slow phone, a loaded machine) submits the form
 * natively. The person asked for a link, so the page asks for it once its script runs, and only once.
 */
test('Enter pressed before the sign-in page is hydrated still sends one link, and a reload sends none', async ({ page }) => {
  const person = await newPerson('early-enter');
  const before = Date.now();
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  // The page's scripts wait until the native submission has happened.
  await page.route('**/_next/static/**/*.js', async (route) => {
    await held;
    await route.continue().catch(() => undefined);
  });
  await page.goto('/sign-in', { waitUntil: 'domcontentloaded' });
  await page.getByLabel('Work email').focus();
  await page.keyboard.type(person.email);
  await page.keyboard.press('Enter');
  await page.waitForURL(/[?&]continue=1/, { waitUntil: 'commit' });
  release();
  await expect(page.getByRole('status')).toContainText('Check your email', { timeout: 20_000 });
  expect(new URL(page.url()).searchParams.get('continue')).toBeNull();
  await expect.poll(() => mailsTo(person.email, before).length).toBe(1);

  // The marker left the address bar: a reload shows the form again and mails nothing.
  await page.reload();
  await expect(page.getByLabel('Work email')).toHaveValue(person.email);
  await expect(page.getByRole('button', { name: 'Continue' })).toBeEnabled();
  await page.waitForTimeout(1000);
  expect(mailsTo(person.email, before)).toHaveLength(1);
});
