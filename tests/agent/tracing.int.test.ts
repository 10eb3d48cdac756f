import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '@/server/http/tracing';
import { newAccount } from '../helpers/client';
import { MODEL, useRunHarness } from './run-harness';

type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: { key: string; value: Record<string, unknown> }[] };

/** Engine steps and model calls are spans too when Steward traces; the words of the user are not in them. */
const received: OtlpSpan[] = [];
const collector = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) received.push(...ss.spans);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
});
let stop: (() => Promise<void>) | null = null;
beforeAll(async () => {
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  stop = await startTracing();
});
afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  collector.close();
});

const h = useRunHarness();
const attr = (s: OtlpSpan, k: string) => s.attributes.find((a) => a.key === k)?.value;

describe('traces of a task run', () => {
  it('have a span per engine call and per model call, without the prompt or the answer', async () => {
    const p = await h.person(await newAccount(h.app()));
    h.state.llm.enqueue({ text: 'A quiet table for four at eight.' });
    const { runId } = await h.startTask(p, { title: 'Book a table', description: 'Secret anniversary dinner' });
    expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
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
