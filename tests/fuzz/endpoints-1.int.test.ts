import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { endpoints } from '@/server/endpoints';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { useTestServer } from '../helpers/server';
import { describeFailures, fuzzEndpoint } from './harness';

/**
 * Property-based fuzz over every registered endpoint (half 1 of 2, so the halves run in
 * parallel workers): derived, mutated and hostile inputs must never get a 5xx. A failure
 * prints each distinct 5xx with the request that caused it; FUZZ_SEED and FUZZ_RUNS replay
 * or lengthen a run, FUZZ_STATS=1 prints the statuses seen per endpoint.
 */
const app = useTestServer();
beforeAll(() => useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-fuzz-')))));
const mine = endpoints.filter((_, i) => i % 2 === 0);

it.each(mine.map((ep) => [`${ep.method} ${ep.path}`, ep] as const))('%s never answers 5xx', async (_name, ep) => {
  const failures = await fuzzEndpoint(app(), ep);
  expect(failures, describeFailures(ep, failures)).toEqual([]);
}, 120_000);
