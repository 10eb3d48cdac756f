import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { admin } from '../helpers/admin-cli';
import { call, newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const dbUrl = () => app().database.pool.options.connectionString as string;

it('create-service-key, import-trace and revoke-service-key work through the CLI', async () => {
  const acct = await newAccount(app());
  const created = await admin(dbUrl(), 'create-service-key', '--account', acct.accountId);
  expect(created.out).toEqual({ tenantId: acct.accountId, serviceKey: expect.stringMatching(/^sk_live_[0-9a-f]{48}$/) });
  const key = created.out.serviceKey;

  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'trace-')), 'trace.json');
  writeFileSync(file, JSON.stringify({ promptName: 'imported', modelConfig: { model: 'gpt-x', provider: 'openai' }, inputTokens: 3, outputTokens: 4 }));
  const imported = await admin(dbUrl(), 'import-trace', '--tenant', acct.accountId, '--file', file);
  expect(imported.out.traceId).toBeTruthy();
  const detail = await call(app(), `/tenants/${acct.accountId}/traces/${imported.out.traceId}`, { key });
  expect(detail.body).toMatchObject({ promptName: 'imported', totalTokens: 7 });

  writeFileSync(file, '{"promptName": 5}');
  const bad = await admin(dbUrl(), 'import-trace', '--tenant', acct.accountId, '--file', file);
  expect(bad.code).toBe(1);
  expect(bad.out).toMatchObject({ ok: false, status: 400 });

  expect((await admin(dbUrl(), 'revoke-service-key', '--key', key)).out).toMatchObject({ tenantId: acct.accountId, revoked: true });
  expect((await call(app(), `/tenants/${acct.accountId}/traces`, { key })).status).toBe(401);
});
