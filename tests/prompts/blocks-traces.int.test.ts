import { describe, expect, it } from 'vitest';
import { recordTrace } from '@/server/prompts/traces';
import { TraceDetail } from '@/server/prompts/traces-contracts';
import { useTestServer } from '../helpers/server';
import { newTenant, samplePrompt, tcall } from './helpers';

const app = useTestServer();

describe('blocks', () => {
  it('CRUD with usedByPrompts computed from the prompts, search, and 409 when deleting a block in use', async () => {
    const t = await newTenant(app());
    const created = await tcall(app(), t, '/blocks', { body: { blockName: 'tone_guide', content: 'Be kind', description: 'Voice and tone' } });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ blockName: 'tone_guide', usedByPrompts: [] });
    expect((await tcall(app(), t, '/blocks', { body: { blockName: 'tone_guide', content: 'x', description: 'y' } })).status).toBe(409);
    const missing = await tcall(app(), t, '/blocks', { body: { blockName: 'Nope Nope' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/blockName.*content.*description|content/);
    await tcall(app(), t, '/blocks', { body: { blockName: 'legal_footer', content: 'Terms apply', description: 'Footer text' } });
    await tcall(app(), t, '/prompts', { body: samplePrompt('uses_tone') });

    const list = await tcall(app(), t, '/blocks');
    expect(list.body.data).toEqual([
      expect.objectContaining({ blockName: 'legal_footer', usedByPrompts: [] }),
      expect.objectContaining({ blockName: 'tone_guide', usedByPrompts: ['uses_tone'] }),
    ]);
    expect(list.body.data[0].content).toBeUndefined();
    const search = await tcall(app(), t, '/blocks?search=VOICE');
    expect(search.body.data.map((b: { blockName: string }) => b.blockName)).toEqual(['tone_guide']);
    expect((await tcall(app(), t, '/blocks?search=footer')).body.data).toHaveLength(1);

    const got = await tcall(app(), t, '/blocks/tone_guide');
    expect(got.body.data).toMatchObject({ content: 'Be kind', usedByPrompts: ['uses_tone'] });
    const patched = await tcall(app(), t, '/blocks/tone_guide', { method: 'PATCH', body: { content: 'Be very kind' } });
    expect(patched.body.data).toMatchObject({ content: 'Be very kind', description: 'Voice and tone', usedByPrompts: ['uses_tone'] });

    const inUse = await tcall(app(), t, '/blocks/tone_guide', { method: 'DELETE' });
    expect(inUse.status).toBe(409);
    expect(inUse.body.usedByPrompts).toEqual(['uses_tone']);
    expect((await tcall(app(), t, '/blocks/tone_guide')).status).toBe(200);
    expect((await tcall(app(), t, '/blocks/legal_footer', { method: 'DELETE' })).status).toBe(200);
    expect((await tcall(app(), t, '/blocks/legal_footer')).status).toBe(404);
  });
});

const sampleTrace = (promptName: string, model: string) => ({
  promptName,
  tags: ['prod'],
  inputTokens: 120,
  outputTokens: 30,
  cost: 0.0042,
  duration: 1830,
  modelConfig: { model, provider: 'openai', temperature: 0.2, max_tokens: 512 },
  messages: [
    { role: 'system' as const, content: 'You help.' },
    { role: 'user' as const, content: 'Where is order 7?' },
    { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c1', name: 'lookup_order', args: { id: '7' } }] },
    { role: 'tool' as const, content: '{"status":"shipped"}', tool_call_id: 'c1' },
    { role: 'assistant' as const, content: 'It shipped.' },
  ],
  output: { message: 'It shipped.', success: true },
  tools: [{ name: 'lookup_order', description: 'Find an order', parameters: { type: 'object' } }],
  toolChoice: 'auto',
  metadata: { run: 'r1' },
  timestamp: 1_790_000_000_000,
});

describe('traces', () => {
  it('lists newest first with search by prompt name or model, and returns the detail at the top level', async () => {
    const t = await newTenant(app());
    const a = await recordTrace(app().database.db, t.tenantId, sampleTrace('support_agent', 'gpt-x'));
    const b = await recordTrace(app().database.db, t.tenantId, sampleTrace('billing_agent', 'claude-y'));
    const list = await tcall(app(), t, '/traces');
    expect(list.body.data.map((x: { traceId: string }) => x.traceId)).toEqual([b.traceId, a.traceId]);
    expect(list.body.data[1]).toMatchObject({ promptName: 'support_agent', status: 'completed', totalTokens: 150, cost: 0.0042, duration: 1830 });
    expect(list.body.data[1].messages).toBeUndefined();
    expect((await tcall(app(), t, '/traces?search=CLAUDE')).body.data.map((x: { traceId: string }) => x.traceId)).toEqual([b.traceId]);
    expect((await tcall(app(), t, '/traces?search=support')).body.data.map((x: { traceId: string }) => x.traceId)).toEqual([a.traceId]);

    const detail = await tcall(app(), t, `/traces/${a.traceId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data).toBeUndefined();
    const d = TraceDetail.parse(detail.body);
    expect(d).toMatchObject({ costCurrency: 'USD', toolChoice: 'auto', timestamp: 1_790_000_000_000, metadata: { run: 'r1' } });
    expect(d.messages[2]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1', name: 'lookup_order' }] });
    expect(d.modelConfig).toMatchObject({ max_tokens: 512 });
    expect((await tcall(app(), t, '/traces/does-not-exist')).status).toBe(404);
  });

  it('recordTrace validates its input', async () => {
    const t = await newTenant(app());
    await expect(recordTrace(app().database.db, t.tenantId, { promptName: '' } as never)).rejects.toThrow(/promptName|modelConfig/);
  });
});
