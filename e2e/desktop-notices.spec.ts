import { expect, test } from '@playwright/test';
import { signInByEmail } from './support/harness';
import { as, newPerson, startTask, taskReaches } from './support/hosted-app';
import { askUserDirective } from './support/model-script';

/*
 * Issue 46, preferences.desktop.enabled: the person turns desktop notifications on in Settings (the
 * browser is asked for its permission first), and once something new needs them, the open app shows
 * one desktop notification, without a reload. The page's Notification is a recorder standing in for the browser's, so
 * the test reads what would have been shown.
 */

test('desktop notifications: turned on in Settings, then a new question shows one notification', async ({ browser }) => {
  test.setTimeout(120_000);
  const person = await newPerson('desktop');
  const context = await browser.newContext();
  // A string, not a function: the test runner's transform would add helpers the page does not have.
  await context.addInitScript(`
    (() => {
      const shown = [];
      window.__shown = shown;
      const Recorder = function (title, options) { shown.push({ title, body: options && options.body }); };
      Recorder.prototype.close = function () {};
      // The permission a browser remembers for the site, kept across page loads of this test.
      Recorder.permission = localStorage.getItem('test.granted') === '1' ? 'granted' : 'default';
      Recorder.requestPermission = async () => {
        localStorage.setItem('test.granted', '1');
        Recorder.permission = 'granted';
        return 'granted';
      };
      window.Notification = Recorder;
    })();
  `);
  const page = await context.newPage();
  await signInByEmail(page, person.email);
  await page.goto('/settings');
  const toggle = page.getByRole('checkbox', { name: 'Desktop notifications while Steward is open in a tab' });
  await expect(toggle).not.toBeChecked();
  // The box follows what was saved (after the browser's permission), not the click itself.
  await toggle.click();
  await expect(page.getByText('Desktop notifications are on in this browser.', { exact: true })).toBeVisible();
  await expect(toggle).toBeChecked();
  expect((await as(person)('/profile')).body.user.preferences.desktop.enabled).toBe(true);

  // The first count this browser sees is remembered, not announced.
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __shown: unknown[] }).__shown.length)).toBe(0);

  const taskId = await startTask(person, 'Pick the venue', `Choose a venue. ${askUserDirective({ id: `desk-${Date.now()}`, question: 'The loft or the garden?' })}`);
  await taskReaches(person, taskId, (t) => t.status === 'awaiting_user_input', 'the question waits for the person');
  // The open page finds it by itself: home re-reads itself live, and the app reads the count every minute.
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { __shown: Array<{ title: string }> }).__shown.map((n) => n.title)), { timeout: 75_000 })
    .toEqual(['Something new needs you']);
  await context.close();
});
