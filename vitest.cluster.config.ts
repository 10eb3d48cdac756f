import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster`: the cluster test (tests/cluster: HAProxy in front of three npm start
 * processes, one killed under load). Kept out of `npm test`'s run (its files are *.cluster.ts)
 * because it takes a few minutes of its own; .ci/run runs it after npm test.
 */
export default defineConfig({
  resolve: { alias: { '@': import.meta.dirname } },
  test: {
    include: ['tests/cluster/**/*.cluster.ts'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
