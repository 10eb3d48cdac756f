import { defineConfig } from '@playwright/test';
import { e2eBaseUrl } from './e2e/support/e2e-env';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/support/chromium';

/**
 * Browser tests in Debian's Chromium (Playwright cannot download browsers here).
 * e2e/global-setup.ts starts a throwaway PostgreSQL and the production server on a free port.
 */
export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  workers: 1,
  reporter: [['list']],
  outputDir: 'test-results/e2e',
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  use: {
    baseURL: e2eBaseUrl(),
    screenshot: 'on',
    trace: 'off',
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS],
    },
  },
});
