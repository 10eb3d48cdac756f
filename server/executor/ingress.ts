import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { isLoopbackHost } from '@/server/http/public-origin';
import { createRunWriter } from './run-writer';
import { hashedSigningKey } from './config';
import type { LocalHandler } from './local-transport';
import type { Op } from './protocol';
import type { CronSpread } from './cron-schedule';
import { ingestEvents, registerFunctions, type FunctionConfig, type IncomingEvent } from './store';

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Registrations carry every function's configuration; nothing legitimate comes near this. */
const MAX_BODY = 5 * 1024 * 1024;

type Reply = [number, Record<string, unknown>];

/** Refusals name their status in the body too: the SDK reports a registration's outcome from the body's `status`. */
const replyText = (status: number, body: Record<string, unknown>) => JSON.stringify(status >= 400 ? { status, ...body } : body);

function reply(res: http.ServerResponse, status: number, body: Record<string, unknown>) {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(replyText(status, body));
}

const Registration = z.object({
  appName: z.string().min(1),
  url: z.string().min(1),
  functions: z.array(
    z
      .object({
        id: z.string().min(1),
        steps: z.record(z.string(), z.object({ runtime: z.object({ url: z.string().optional() }).loose().optional() }).loose()).optional(),
      })
      .loose(),
  ),
});

const Checkpoint = z.object({
  qi_id: z.string().min(1),
  steps: z.array(z.object({ id: z.string().min(1), op: z.string().min(1) }).loose()),
});

const withoutQuery = (url: string) => url.split('?')[0];

/**
 * Which serve URLs a registration may name. With `serveUrl` (npm start): exactly that one, so the
 * executor's signed calls, event data included, only ever go to Steward's own serve endpoint.
 * Without it (tests and the benchmark, which learn their port late): loopback http URLs only.
 */
function serveUrlCheck(serveUrl: string | undefined): (url: string) => boolean {
  if (serveUrl) {
    const own = withoutQuery(new URL(serveUrl).href);
    return (url) => {
      try {
        return withoutQuery(new URL(url).href) === own;
      } catch {
        return false;
      }
    };
  }
  return (url) => {
    try {
      const u = new URL(url);
      return u.protocol === 'http:' && isLoopbackHost(u.host);
    } catch {
      return false;
    }
  };
}

/**
 * The two calls the Inngest SDK makes to its server, served for the built-in executor on a
 * loopback port: registration (`POST /fn/register`, sent when /api/inngest receives a signed PUT)
 * and events (`POST /e/<event key>`, from inngest.send and step.sendEvent). The SDK's
 * baseUrl points here, so nothing of this is exposed on the public port.
 */
export async function startIngress(opts: { db: Db; signingKey: string; eventKey: string; port?: number; serveUrl?: string; cronSpread?: CronSpread }): Promise<{ url: string; handle: LocalHandler; close: () => Promise<void> }> {
  const isOwnServeUrl = serveUrlCheck(opts.serveUrl);
  const checkpoints = createRunWriter(opts.db);
  // Hashed once: every checkpoint (one per step) presents it.
  const hashedKey = hashedSigningKey(opts.signingKey);
  const signedBySdk = (authorization: string | null | undefined) => same(authorization?.replace(/^Bearer\s+/i, '') ?? '', hashedKey);

  /** One request, whichever way it came (the loopback port, or in-process through local-transport.ts). */
  async function answer(method: string, url: string, authorization: string | null | undefined, raw: string): Promise<Reply> {
    try {
      const body = raw ? JSON.parse(raw) : {};
      const path = url.split('?')[0];
      if (method === 'POST' && path === '/fn/register') {
        if (!signedBySdk(authorization)) return [401, { error: 'Registration needs the signing key' }];
        const parsed = Registration.safeParse(body);
        if (!parsed.success) return [400, { error: `Malformed registration: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}` }];
        const named = [parsed.data.url, ...parsed.data.functions.flatMap((f) => Object.values(f.steps ?? {}).map((s) => s.runtime?.url ?? parsed.data.url))];
        const foreign = named.find((u) => !isOwnServeUrl(u));
        if (foreign !== undefined) return [400, { error: `Registration names a serve URL other than this Steward's own: ${withoutQuery(foreign)}` }];
        return [200, await registerFunctions(opts.db, { appName: parsed.data.appName, url: parsed.data.url, functions: parsed.data.functions as FunctionConfig[] }, new Date(), opts.cronSpread)];
      }
      // Steps the SDK ran within one call of the executor (async checkpointing): stored at once,
      // so a crash later in the call repeats none of them.
      const cp = /^\/v1\/checkpoint\/([^/]+)\/async$/.exec(path);
      if (method === 'POST' && cp) {
        if (!signedBySdk(authorization)) return [401, { error: 'Checkpoints need the signing key' }];
        const parsed = Checkpoint.safeParse(body);
        if (!parsed.success) return [400, { error: 'Malformed checkpoint' }];
        const stored = await checkpoints.checkpoint({ runId: decodeURIComponent(cp[1]), owner: parsed.data.qi_id, steps: parsed.data.steps as Op[] });
        return stored ? [200, { ok: true }] : [409, { error: 'The run is no longer leased to the worker that called' }];
      }
      const ev = /^\/e\/([^/]+)$/.exec(path);
      if (method === 'POST' && ev) {
        if (!same(decodeURIComponent(ev[1]), opts.eventKey)) return [401, { error: 'Unknown event key' }];
        const events = (Array.isArray(body) ? body : [body]) as IncomingEvent[];
        if (events.some((e) => typeof e?.name !== 'string')) return [400, { error: 'Every event needs a name' }];
        return [200, { ids: await ingestEvents(opts.db, events, new Date()), status: 200 }];
      }
      return [404, { error: 'Not found' }];
    } catch (e) {
      const malformed = e instanceof SyntaxError || e instanceof URIError;
      return [malformed ? 400 : 500, { error: malformed ? 'Malformed request' : 'Failed' }];
    }
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reply(res, 413, { error: 'Body too large' });
        req.destroy();
        return;
      }
      raw += c;
    });
    req.on('end', async () => {
      const [status, body] = await answer(req.method ?? 'GET', req.url ?? '', req.headers.authorization, raw);
      if (!res.headersSent) reply(res, status, body);
    });
  });
  const handle: LocalHandler = async (req) => {
    const raw = await req.text();
    const [status, body] = raw.length > MAX_BODY ? ([413, { error: 'Body too large' }] as Reply) : await answer(req.method, new URL(req.url).pathname, req.header('authorization'), raw);
    return new Response(replyText(status, body), { status, headers: { 'Content-Type': 'application/json' } });
  };
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    handle,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
