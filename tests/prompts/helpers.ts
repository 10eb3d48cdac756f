import { createServiceKey } from '@/server/prompts/service-keys';
import { call, newAccount } from '../helpers/client';
import type { TestServer } from '../helpers/server';

export type Tenant = { tenantId: string; key: string; accountKey: string };

export async function newTenant(server: TestServer): Promise<Tenant> {
  const acct = await newAccount(server, 'Tenant');
  const { serviceKey } = await createServiceKey(server.database.db, acct.accountId);
  return { tenantId: acct.accountId, key: serviceKey, accountKey: acct.key };
}

export const tcall = (server: TestServer, t: Tenant, path: string, opts: Parameters<typeof call>[2] = {}) =>
  call(server, `/tenants/${t.tenantId}${path}`, { key: t.key, ...opts });

export const samplePrompt = (promptName: string) => ({
  promptName,
  category: 'support',
  description: 'Answers support questions',
  systemChunks: [
    { content: 'Be brief. {{block:tone_guide}}', order: 2 },
    { content: 'You help {{customer_name}} with {{product}}.', order: 1 },
  ],
  userChunks: [{ content: 'Question: {{question}}' }],
  variables: [
    { name: 'customer_name', type: 'string', required: true, description: 'Who asks' },
    { name: 'product', type: 'string', metadata: { default: 'Steward' } },
  ],
  toolDefs: [{ name: 'lookup_order', description: 'Find an order', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }],
  models: [{ provider: 'openai', name: 'gpt-x' }],
});
