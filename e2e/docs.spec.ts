import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

test('the API reference lists operations and sends a real request with the pasted key', async ({ page }) => {
  await page.goto('/docs');
  await expect(page.getByRole('heading', { name: 'Steward API reference' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Keys' })).toBeVisible();
  await page.getByLabel('Bearer credential').fill(process.env.E2E_API_KEY!);
  await page.getByLabel('Filter operations').fill('/me');
  const op = page.locator('details', { hasText: 'The calling credential' });
  await op.locator('summary').click();
  await op.getByRole('button', { name: 'Send' }).click();
  await expect(op.locator('output')).toContainText('200');
  await expect(op.locator('output')).toContainText(process.env.E2E_ACCOUNT_ID!);
  await page.screenshot({ path: 'test-results/e2e/docs.png', fullPage: true });
});

test('the API reference and home page pass an accessibility scan', async ({ page }) => {
  for (const url of ['/', '/docs']) {
    await page.goto(url);
    await page.waitForLoadState('networkidle');
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  }
});
