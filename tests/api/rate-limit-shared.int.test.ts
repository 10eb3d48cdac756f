import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { setRateLimits } from '@/server/accounts/service';
import { credentials } from '@/server/credentials';
import { endpoints } from '@/server/endpoints';
import { createApiCore } from '@/server/http/kernel';
import { createKernelDeps } from '@/server/http/kernel-deps';
import { createNodeServer } from '@/server/http/node-server';
import { call, newAccount } from '../helpers/client';
import { useTestServer, type TestServer } from '../helpers/server';

const app = useTestServer();
const extra: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of extra) await close();
});

/** A second app instance over the same database, as when Steward runs on several machines. */
async function secondInstance(): Promise<TestServer> {
  const kernel = createKernelDeps(app().database, credentials);
  const server = createNodeServer(createApiCore(endpoints, kernel));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  extra.push(() => new Promise<void>((r) => server.close(() => r())));
  return { ...app(), kernel, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` };
}

it('refuses exactly at the limit although points are reserved in chunks', async () => {
  const acct = await newAccount(app());
  await setRateLimits(app().database.db, acct.accountId, { reads: 250, writes: null });
  let ok = 0;
  for (let i = 0; i < 260; i++) if ((await call(app(), '/me', { key: acct.key })).status === 200) ok++;
  expect(ok).toBe(250);
});

it('several instances share the counters in Postgres', async () => {
  const acct = await newAccount(app());
  await setRateLimits(app().database.db, acct.accountId, { reads: 100, writes: null });
  const other = await secondInstance();
  const statuses = await Promise.all(
    Array.from({ length: 140 }, (_, i) => call(i % 2 ? other : app(), '/me', { key: acct.key })),
  );
  const ok = statuses.filter((s) => s.status === 200).length;
  expect(ok).toBeLessThanOrEqual(100);
  // Unused points an instance reserved may refuse a few requests early, never many.
  expect(ok).toBeGreaterThanOrEqual(96);
  expect(statuses.filter((s) => s.status === 429).length).toBe(140 - ok);
});
