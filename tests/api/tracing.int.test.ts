import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '@/server/http/tracing';
import { spanAttribute, startOtlpCollector, type OtlpSpan } from '../helpers/otlp-collector';
import { call, newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';

let collector: Awaited<ReturnType<typeof startOtlpCollector>>;
let received: OtlpSpan[] = [];
let stop: (() => Promise<void>) | null = null;

beforeAll(async () => {
  collector = await startOtlpCollector();
  received = collector.received;
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = collector.url;
  process.env.OTEL_SERVICE_NAME = 'steward-test';
  stop = await startTracing();
});
afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  collector.close();
});

const app = useTestServer();
const attr = spanAttribute;

describe('OpenTelemetry traces (OTEL_* set)', () => {
  it('a request is a server span named by its route, carrying the request id, with its database queries as children', async () => {
    expect(stop).not.toBeNull();
    const acct = await newAccount(app());
    const r = await call(app(), '/me', { key: acct.key, headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    expect(r.status).toBe(200);
    const requestId = r.headers.get('x-request-id');
    await stop!();
    const server = received.find((s) => s.name === 'GET /me');
    expect(server).toBeDefined();
    expect(attr(server!, 'steward.request_id')?.stringValue).toBe(requestId);
    expect(attr(server!, 'http.route')?.stringValue).toBe('/me');
    expect(Number(attr(server!, 'http.response.status_code')?.intValue)).toBe(200);
    // The caller's trace continues (W3C traceparent), so Steward's spans join the client's trace.
    expect(server!.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(server!.parentSpanId).toBe('b7ad6b7169203331');
    const queries = received.filter((s) => s.name === 'db.query' && s.parentSpanId === server!.spanId);
    expect(queries.length).toBeGreaterThan(0);
    expect(String(attr(queries[0], 'db.statement')?.stringValue)).toMatch(/select/i);
    // Parameter values (the API key's hash, emails) are never in a span.
    for (const q of queries) expect(JSON.stringify(q)).not.toContain(acct.key);
  });
});
