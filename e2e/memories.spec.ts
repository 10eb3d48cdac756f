import { expect, test } from '@playwright/test';
import { expectAccessible, signInByEmail } from './support/harness';
import { as, checkPage, newPerson, screen } from './support/hosted-app';

/*
 * Issue 44, the Memories page: the person sees what their assistant remembers, searches it
 * (ranked), remembers something new, edits one, pins one and deletes one, in a real browser;
 * clean for axe, every control reachable with the keyboard.
 */

test('memories: see, search, remember, edit, pin and delete', async ({ browser }) => {
  test.setTimeout(120_000);
  const person = await newPerson('memories');
  for (const content of ['Prefers a window seat on long flights', 'Allergic to shellfish', 'The gym closes at 9pm on Sundays']) {
    expect((await as(person)('/memories', { body: { content } })).status).toBe(201);
  }
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInByEmail(page, person.email);

  await page.getByRole('link', { name: 'Memories' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Memories');
  const list = page.getByRole('list', { name: 'Memories' });
  await expect(list.getByTestId('memory')).toHaveCount(3);
  await checkPage(page);
  await screen(page, 'memories', 'desktop');

  // Search: ranked, the matching memory first.
  await page.getByRole('searchbox', { name: 'Search memories' }).fill('flight seats');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('heading', { name: 'Best matches for “flight seats”' })).toBeVisible();
  await expect(list.getByTestId('memory').first()).toContainText('window seat');
  await page.getByRole('link', { name: 'Clear' }).click();

  // Remember something, pinned.
  await page.getByLabel('What should your assistant remember?').fill('My daughter’s school is Riverside Primary');
  await page.getByLabel('Pin it (always in your assistant’s context)').check();
  await page.getByRole('button', { name: 'Remember' }).click();
  const school = list.getByTestId('memory').filter({ hasText: 'Riverside Primary' });
  await expect(school.getByText('Pinned')).toBeVisible();

  // Edit one.
  const gym = list.getByTestId('memory').filter({ hasText: 'The gym closes' });
  await gym.getByRole('button', { name: /^Edit/ }).click();
  await page.getByRole('dialog').getByLabel('Memory').fill('The gym closes at 8pm on Sundays');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await expect(list.getByText('The gym closes at 8pm on Sundays', { exact: true })).toBeVisible();

  // Unpin, then delete one after confirming.
  await school.getByRole('button', { name: /^Unpin/ }).click();
  await expect(school.getByText('Pinned')).toHaveCount(0);
  const allergy = list.getByTestId('memory').filter({ hasText: 'Allergic to shellfish' });
  await allergy.getByRole('button', { name: /^Delete/ }).click();
  await expectAccessible(page);
  await page.getByRole('dialog').getByRole('button', { name: 'Delete memory' }).click();
  await expect(list.getByText('Allergic to shellfish')).toHaveCount(0);

  const stored = (await as(person)('/memories')).body.memories.map((m: { content: string; pinned: boolean }) => [m.content, m.pinned]);
  expect(stored).toEqual(
    expect.arrayContaining([
      ['My daughter’s school is Riverside Primary', false],
      ['The gym closes at 8pm on Sundays', false],
      ['Prefers a window seat on long flights', false],
    ]),
  );
  expect(stored).toHaveLength(3);
  await context.close();
});
