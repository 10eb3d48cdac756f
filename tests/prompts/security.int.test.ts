import { describe, expect, it } from 'vitest';
import { endpoints } from '@/server/endpoints';
import { revokeServiceKey } from '@/server/prompts/service-keys';
import { recordTrace } from '@/server/prompts/traces';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { newTenant, samplePrompt, tcall, type Tenant } from './helpers';

const app = useTestServer();
const tenantEndpoints = endpoints.filter((e) => e.auth === 'service');

async function seeded(): Promise<{ t: Tenant; params: Record<string, string> }> {
  const t = await newTenant(app());
  await tcall(app(), t, '/blocks', { body: { blockName: 'tone_guide', content: 'x', description: 'y' } });
  await tcall(app(), t, '/prompts', { body: samplePrompt('owned') });
  await tcall(app(), t, '/prompts/owned/publish', { method: 'POST' });
  const { traceId } = await recordTrace(app().database.db, t.tenantId, { promptName: 'owned', modelConfig: { model: 'm', provider: 'p' } });
  return { t, params: { tenantId: t.tenantId, promptName: 'owned', versionNumber: '1', blockName: 'tone_guide', traceId } };
}
const fill = (path: string, params: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, n) => params[n]);
const validBody: Record<string, unknown> = {
  'POST /tenants/{tenantId}/prompts': samplePrompt('another_one'),
  'PATCH /tenants/{tenantId}/prompts/{promptName}': { description: 'z' },
  'POST /tenants/{tenantId}/blocks': { blockName: 'another_block', content: 'c', description: 'd' },
  'PATCH /tenants/{tenantId}/blocks/{blockName}': { content: 'c' },
};

describe.each(tenantEndpoints.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', (name, ep) => {
  const body = ep.method === 'GET' ? undefined : (validBody[name] ?? {});
  it('401 without a key, with a revoked key, and with an account API key', async () => {
    const { t, params } = await seeded();
    const url = fill(ep.path, params);
    expect((await call(app(), url, { method: ep.method, key: null, body })).status).toBe(401);
    expect((await call(app(), url, { method: ep.method, key: t.accountKey, body })).status).toBe(401);
    const other = await newTenant(app());
    await revokeServiceKey(app().database.db, other.key);
    expect((await call(app(), url, { method: ep.method, key: other.key, body })).status).toBe(401);
  });

  it("404 with another tenant's key, and nothing changes", async () => {
    const { t, params } = await seeded();
    const other = await newTenant(app());
    const res = await call(app(), fill(ep.path, params), { method: ep.method, key: other.key, body });
    expect(res.status).toBe(404);
    expect((await tcall(app(), t, '/prompts/owned')).body.data.etag).toMatch(/^v1_/);
  });
});

it('a service key is refused on the main API', async () => {
  const t = await newTenant(app());
  const res = await call(app(), '/me', { key: t.key });
  expect(res.status).toBe(401);
  expect(res.body.error_code).toBe('unauthorized');
});
