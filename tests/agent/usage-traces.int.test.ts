import { describe, expect, it } from 'vitest';
import { createServiceKey } from '@/server/prompts/service-keys';
import { call, newAccount } from '../helpers/client';
import { MODEL, useRunHarness } from './run-harness';

/** Usage rows per model step and the run's trace, through the production task-run function. */
const h = useRunHarness();

describe('usage and traces of a task run', () => {
  it('a 2-step run records one usage row per model step with the provider’s token counts, and a trace the tenant API lists', async () => {
    const acct = await newAccount(h.app());
    const a = await h.person(acct);
    h.state.llm.enqueue(
      { toolCalls: [{ name: 'update_plan', arguments: { items: [{ text: 'Find a restaurant', status: 'done' }] } }], usage: { promptTokens: 40, completionTokens: 9 } },
      { text: 'Booked.', toolCalls: [{ name: 'complete_task', arguments: { summary: 'Table for four' } }], usage: { promptTokens: 70, completionTokens: 12, cachedTokens: 30 } },
    );
    const { taskId, runId } = await h.startTask(a);
    expect(await h.ended(runId)).toMatchObject({ status: 'finished' });

    const usage = await call(h.app(), `/tasks/${taskId}/usage`, { key: a.key });
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body.rows).toEqual([
      expect.objectContaining({ runId, seq: 0, modelTier: 'medium', model: MODEL, inputTokens: 40, outputTokens: 9, cacheReadTokens: 0, cacheCreationTokens: 0 }),
      expect.objectContaining({ runId, seq: 1, modelTier: 'medium', model: MODEL, inputTokens: 40, outputTokens: 12, cacheReadTokens: 30, cacheCreationTokens: 0 }),
    ]);
    expect(usage.body.total).toEqual({ inputTokens: 80, outputTokens: 21, cacheReadTokens: 30, cacheCreationTokens: 0 });
    expect(usage.body.credits.runs).toEqual([expect.objectContaining({ runId })]);

    // The trace step runs after the end step: wait for it.
    const { serviceKey } = await createServiceKey(h.db(), acct.accountId);
    const listed = await h.until(async () => {
      const res = await call(h.app(), `/tenants/${acct.accountId}/traces`, { key: serviceKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.length ? res.body : null;
    });
    expect(listed.data).toEqual([
      expect.objectContaining({
        traceId: runId,
        promptName: 'task-run',
        status: 'completed',
        inputTokens: 110,
        outputTokens: 21,
        totalTokens: 131,
        modelConfig: expect.objectContaining({ model: MODEL, tier: 'medium' }),
      }),
    ]);
    expect(listed.data[0].duration).toBeGreaterThanOrEqual(0);

    const detail = await call(h.app(), `/tenants/${acct.accountId}/traces/${runId}`, { key: serviceKey });
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    const trace = detail.body.trace ?? detail.body;
    expect(trace.messages[0]).toMatchObject({ role: 'user', content: 'Task: Book a table' });
    const calls = trace.messages.flatMap((m: any) => m.tool_calls ?? []).map((c: any) => c.name);
    expect(calls).toEqual(['update_plan', 'complete_task']);
    expect(trace.messages.filter((m: any) => m.role === 'tool')).toHaveLength(2);
    expect(trace.output).toEqual({ message: 'Booked.', success: true });
    expect(trace.metadata).toMatchObject({ taskId, runId, trigger: 'process', tier: 'medium', modelCalls: 2 });
  });

  it('another account’s service key does not see the run’s trace', async () => {
    const acct = await newAccount(h.app());
    const other = await newAccount(h.app());
    const a = await h.person(acct);
    h.state.llm.enqueue({ text: 'Done.' });
    const { runId } = await h.startTask(a);
    await h.ended(runId);
    const { serviceKey } = await createServiceKey(h.db(), other.accountId);
    const mine = await call(h.app(), `/tenants/${other.accountId}/traces`, { key: serviceKey });
    expect(mine.body.data).toEqual([]);
    const theirs = await call(h.app(), `/tenants/${acct.accountId}/traces/${runId}`, { key: serviceKey });
    expect([403, 404]).toContain(theirs.status);
  });
});
