import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '@/server/http/tracing';
import { spanAttribute, startOtlpCollector, type OtlpSpan } from '../helpers/otlp-collector';
import { newAccount } from '../helpers/client';
import { MODEL, useRunHarness } from './run-harness';

/** Engine steps and model calls are spans too when Steward traces; the words of the user are not in them. */
let collector: Awaited<ReturnType<typeof startOtlpCollector>>;
let received: OtlpSpan[] = [];
let stop: (() => Promise<void>) | null = null;
beforeAll(async () => {
  collector = await startOtlpCollector();
  received = collector.received;
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = collector.url;
  stop = await startTracing();
});
afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  collector.close();
});

const h = useRunHarness();
const attr = spanAttribute;

describe('traces of a task run', () => {
  it('have a span per engine call and per model call, without the prompt or the answer', async () => {
    const p = await h.person(await newAccount(h.app()));
    h.state.llm.enqueue({ text: 'A quiet table for four at eight.' });
    const { runId } = await h.startTask(p, { title: 'Book a table', description: 'Secret anniversary dinner' });
    expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
    // The engine's call of the run ends (and its span with it) just after the run recorded its end.
    await h.until(async () => {
      const { rows } = await h.db().execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM executor_runs WHERE function_id LIKE '%task-run' AND status <> 'completed'`);
      return rows[0]!.n === 0 ? true : null;
    }, 20_000);
    await stop!();

    const calls = received.filter((s) => s.name === 'engine.call' && String(attr(s, 'steward.function')?.stringValue).endsWith('task-run'));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.some((s) => attr(s, 'steward.run_id') !== undefined)).toBe(true);
    const model = received.filter((s) => s.name.startsWith('ai.generateText'));
    expect(model.length).toBeGreaterThan(0);
    expect(model.some((s) => attr(s, 'ai.model.id')?.stringValue === MODEL)).toBe(true);
    const everything = JSON.stringify(received);
    expect(everything).not.toContain('Secret anniversary dinner');
    expect(everything).not.toContain('A quiet table for four');
  });
});
