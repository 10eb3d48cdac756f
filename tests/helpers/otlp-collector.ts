import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[] };

/** A loopback OTLP/HTTP (JSON) collector: the spans the exporter would have sent to a real one. */
export async function startOtlpCollector() {
  const received: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) received.push(...ss.spans);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, received, close: () => server.close() };
}

export const spanAttribute = (s: OtlpSpan, key: string) => s.attributes.find((a) => a.key === key)?.value;
