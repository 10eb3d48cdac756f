import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '@/db/client';
import { hashedSigningKey } from './config';
import { ingestEvents, registerFunctions, type FunctionConfig, type IncomingEvent } from './store';

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function reply(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * The two calls the Inngest SDK makes to its server, served for the built-in executor on a
 * loopback port: registration (`POST /fn/register`, sent when /api/inngest receives a PUT)
 * and events (`POST /e/<event key>`, from inngest.send and step.sendEvent). The SDK's
 * baseUrl points here, so nothing of this is exposed on the public port.
 */
export async function startIngress(opts: { db: Db; signingKey: string; eventKey: string; port?: number }): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      try {
        const body = raw ? JSON.parse(raw) : {};
        const path = (req.url ?? '').split('?')[0];
        if (req.method === 'POST' && path === '/fn/register') {
          const auth = req.headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';
          if (!same(auth, hashedSigningKey(opts.signingKey))) return reply(res, 401, { error: 'Registration needs the signing key' });
          return reply(res, 200, await registerFunctions(opts.db, { appName: body.appName, url: body.url, functions: body.functions as FunctionConfig[] }, new Date()));
        }
        const ev = /^\/e\/([^/]+)$/.exec(path);
        if (req.method === 'POST' && ev) {
          if (!same(decodeURIComponent(ev[1]), opts.eventKey)) return reply(res, 401, { error: 'Unknown event key' });
          const events = (Array.isArray(body) ? body : [body]) as IncomingEvent[];
          if (events.some((e) => typeof e?.name !== 'string')) return reply(res, 400, { error: 'Every event needs a name' });
          return reply(res, 200, { ids: await ingestEvents(opts.db, events, new Date()), status: 200 });
        }
        reply(res, 404, { error: 'Not found' });
      } catch (e) {
        reply(res, e instanceof SyntaxError ? 400 : 500, { error: e instanceof SyntaxError ? 'Malformed JSON' : 'Failed' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
