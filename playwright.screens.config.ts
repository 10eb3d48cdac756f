import { defineConfig } from '@playwright/test';
import base from './playwright.config';

/**
 * `npm run screens`: writes docs/screens/*.png from e2e/*.screens.ts, on demand. They are not
 * tests and `npm test` (playwright.config.ts: *.spec.ts) does not run them.
 */
export default defineConfig({ ...base, testMatch: '**/*.screens.ts', outputDir: 'test-results/screens' });
