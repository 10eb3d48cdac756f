import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import pg from 'pg';

/**
 * OpenTelemetry traces, off unless the standard OTEL_* variables ask for them: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none`. The exporter reads the rest
 * (headers, protocol details) from the environment itself. While off, nothing here runs on the
 * request path: the kernel checks `tracingOn` before it makes a span.
 */
export let tracingOn = false;

export const tracer = () => trace.getTracer('steward');

export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  if ((env.OTEL_TRACES_EXPORTER ?? '').split(',').includes('none')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Registers the SDK (batching OTLP/HTTP exporter, async-local context) and the database spans.
 * Called once by the serving process before it serves; answers a stop function that flushes.
 */
export async function startTracing(): Promise<(() => Promise<void>) | null> {
  if (tracingOn || !tracingRequested()) return null;
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'steward' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  traceQueries();
  tracingOn = true;
  return async () => {
    await provider.forceFlush();
    await provider.shutdown();
  };
}

/**
 * One span per database query, a child of whatever span is active (the request, an engine step).
 * The statement text is recorded with its placeholders; parameter values never are. Patched on
 * pg's Client, which both pooled queries and transactions go through; instrumentation packages
 * that hook module loading need loader flags under ESM, which `npm start` does not use.
 */
function traceQueries() {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown; __stewardTraced?: boolean };
  if (proto.__stewardTraced) return;
  proto.__stewardTraced = true;
  const original = proto.query;
  // pg's Pool hands a free client to a waiting query from another query's release, in that
  // query's async context: bind the callback to the caller's context so spans find their parent.
  const poolProto = pg.Pool.prototype as unknown as { connect: (...args: unknown[]) => unknown };
  const connect = poolProto.connect;
  poolProto.connect = function boundConnect(this: unknown, ...args: unknown[]) {
    const cb = args[0];
    if (typeof cb === 'function') return connect.call(this, context.bind(context.active(), cb as (...a: unknown[]) => unknown));
    return connect.apply(this, args);
  };
  proto.query = function tracedQuery(this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : typeof first === 'object' && first && 'text' in first ? String((first as { text: unknown }).text) : '';
    // Submittable queries (cursors, streams) pass through untraced.
    if (!text) return original.apply(this, args);
    const span = tracer().startSpan('db.query', { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql', 'db.statement': text.slice(0, 2000) } });
    const end = (e?: unknown) => {
      if (e) {
        span.recordException(e as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    };
    const last = args[args.length - 1];
    // pg's Pool queries with a callback; drizzle's transactions with promises.
    if (typeof last === 'function') {
      args[args.length - 1] = (e: unknown, ...rest: unknown[]) => {
        end(e);
        return (last as (...a: unknown[]) => unknown)(e, ...rest);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(() => end(), end);
    else end();
    return result;
  };
}

/**
 * Runs `fn` inside a server span for one API request, continuing the caller's trace when a
 * `traceparent` header came with it. `finish` sets the route and status once they are known.
 */
export function inRequestSpan<T>(method: string, headers: Pick<Headers, 'get'>, fn: (finish: (route: string, status: number, requestId: string) => void) => Promise<T>): Promise<T> {
  const parent = propagation.extract(context.active(), headers, { get: (h, k) => h.get(k) ?? undefined, keys: () => ['traceparent', 'tracestate'] });
  return tracer().startActiveSpan(`${method}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent, async (span: Span) => {
    try {
      return await fn((route, status, requestId) => {
        span.updateName(`${method} ${route}`);
        span.setAttribute('steward.request_id', requestId);
        span.setAttribute('http.route', route);
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      });
    } finally {
      span.end();
    }
  });
}

/** A span around one durable step or model call (engine, agent runtime): a no-op while tracing is off. */
export async function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, fn: () => Promise<T>): Promise<T> {
  if (!tracingOn) return fn();
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn();
    } catch (e) {
      span.recordException(e as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw e;
    } finally {
      span.end();
    }
  });
}
