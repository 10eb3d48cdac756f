import { expect, it } from 'vitest';
import { z } from 'zod';
import { defineEndpoint } from '@/server/http/endpoint';
import { operationIds } from '@/server/http/operation-ids';
import { endpoints } from '@/server/endpoints';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

type Operation = { operationId?: string; responses: Record<string, { $ref?: string }>; security?: unknown[]; tags?: string[] };
async function document() {
  const res = await fetch(`${app().baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  return res.json();
}
const operations = (doc: { paths: Record<string, Record<string, Operation>> }) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

it('serves the OpenAPI 3.1 document without a credential', async () => {
  const doc = await document();
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.paths['/me'].get.responses['200']).toBeDefined();
  expect(doc.paths['/api-keys'].post.requestBody.content['application/json'].schema.properties.label).toBeDefined();
});

it('names every operation with a stable, readable, unique operationId', async () => {
  const doc = await document();
  const ops = operations(doc);
  const ids = ops.map((o) => o.op.operationId);
  expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  expect(doc.paths['/tasks'].get.operationId).toBe('tasks.list');
  expect(doc.paths['/tasks'].post.operationId).toBe('tasks.create');
  expect(doc.paths['/tasks/{taskId}'].get.operationId).toBe('tasks.get');
  expect(doc.paths['/tasks/{taskId}'].delete.operationId).toBe('tasks.delete');
  expect(doc.paths['/tasks/{taskId}/process'].post.operationId).toBe('tasks.process');
  expect(doc.paths['/portal/carts/{cartId}/approve'].post.operationId).toBe('portal.carts.approve');
  expect(doc.paths['/scim/v2/Users/{id}'].put.operationId).toBe('scim.users.replace');
  expect(doc.paths['/scim/v2/Users/{id}'].patch.operationId).toBe('scim.users.update');
  expect(doc.paths['/users/{userId}/preferences/supervision/matrix/reset'].put.operationId).toBe('users.preferences.supervision.matrix.reset');
  expect(doc.paths['/profile'].get.operationId).toBe('profile.get');
});

it('the rule needs no fallback for the registry, and an explicit operationId wins', () => {
  expect(operationIds(endpoints.filter((e) => !e.internal)).collisions).toEqual([]);
  const base = { tags: ['X'], auth: 'none' as const, response: z.object({}), handle: async () => ({}) };
  const a = defineEndpoint({ ...base, method: 'GET', path: '/a/{x}/b', summary: 'a' });
  const b = defineEndpoint({ ...base, method: 'GET', path: '/a/b/{y}', summary: 'b' });
  const clash = operationIds([a, b]);
  expect(clash.collisions).toHaveLength(1);
  expect(new Set(clash.ids.values()).size).toBe(2);
  const named = defineEndpoint({ ...base, method: 'GET', path: '/a/b/{y}', summary: 'b', operationId: 'a.byY' });
  expect(operationIds([a, named])).toEqual({ ids: new Map([[a, 'a.b.get'], [named, 'a.byY']]), collisions: [] });
});

it('documents the error responses of every operation in the shared error shape', async () => {
  const doc = await document();
  for (const { path, method, op } of operations(doc)) {
    const fourXx = Object.keys(op.responses).filter((s) => /^4\d\d$/.test(s));
    expect(fourXx.length, `${method} ${path}`).toBeGreaterThan(0);
    expect(op.responses['429'], `${method} ${path}`).toBeDefined();
  }
  expect(doc.components.schemas.Error.required).toEqual(['ok', 'status', 'error_code', 'error']);
  expect(doc.paths['/tasks/{taskId}'].get.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
  expect(doc.components.responses.NotFound.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  expect(doc.paths['/tasks'].post.responses['423']).toBeDefined();
  expect(Object.keys(doc.components.responses.RateLimited.headers)).toContain('Retry-After');
  // Under SCIM the kernel answers errors in SCIM's shape: the document does not claim Steward's.
  expect(doc.paths['/scim/v2/Users'].get.responses['401'].$ref).toBe('#/components/responses/UnauthorizedInProtocolShape');
});

it('says who may call and how to act as a user, with license, contact, servers and described tags', async () => {
  const doc = await document();
  expect(doc.info.license).toMatchObject({ name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' });
  expect(doc.info.contact).toBeDefined();
  expect(doc.servers[0].url).toBe('/api');
  expect(doc.components.securitySchemes.actAs).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-User-Email' });
  expect(doc.paths['/tasks'].post.security).toEqual([{ bearer: [] }, { bearer: [], actAs: [] }]);
  expect(doc.paths['/health'].get.security).toEqual([]);
  expect(doc.paths['/tenants/{tenantId}/prompts'].get.security).toEqual([{ serviceKey: [] }]);
  const used = new Set(operations(doc).flatMap((o) => o.op.tags ?? []));
  expect(new Set(doc.tags.map((t: { name: string }) => t.name))).toEqual(used);
  expect(doc.tags.every((t: { description?: string }) => !!t.description)).toBe(true);
});
