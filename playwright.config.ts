import { defineConfig } from '@playwright/test';
import { e2eBaseUrl } from './e2e/support/e2e-env';

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
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // No omnibox WebUI: headless Chromium otherwise loads it in a renderer of its own for each new page.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI'],
    },
  },
});
