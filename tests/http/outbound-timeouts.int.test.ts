import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderHttpError } from '@/server/channels/providers';
import { providerRequest as chatRequest } from '@/server/channels/slack/provider-http';
import { providerRequest as textRequest } from '@/server/channels/twilio/http';
import { postOutbound } from '@/server/http/outbound-request';

/*
 * Every outbound HTTP call ends (issue 49). A provider that answers a trickle (a byte every
 * 100 ms, so the socket is never idle) was waited on for as long as it trickled: only silence
 * ended a request. Now the whole exchange has its total (server/http/outbound-timeouts.ts), and
 * the error says the request may have arrived.
 */
const ALLOW = ['STEWARD_PROVIDER_ALLOWED_RANGES', 'STEWARD_WEBHOOK_ALLOW_PRIVATE'] as const;
const saved = Object.fromEntries(ALLOW.map((n) => [n, process.env[n]]));
const sockets = new Set<Socket>();
let server: http.Server;
let url: URL;

beforeAll(async () => {
  for (const n of ALLOW) process.env[n] = '127.0.0.0/8';
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    const drip = setInterval(() => res.write('.'), 100);
    res.on('close', () => clearInterval(drip));
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/trickle`);
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  for (const [n, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[n];
    else process.env[n] = v;
  }
});

const timed = async <T>(work: Promise<T>) => {
  const t0 = Date.now();
  const value = await work;
  return { value, ms: Date.now() - t0 };
};

describe('outbound HTTP calls end at their total timeout', () => {
  it('a webhook attempt (postOutbound)', async () => {
    const { value, ms } = await timed(postOutbound(url, {}, '{}', { allowVariable: 'STEWARD_WEBHOOK_ALLOW_PRIVATE', timeoutMs: 600 }));
    expect(value).toMatchObject({ status: null, error: expect.stringContaining('no answer within 600 ms') });
    expect(ms).toBeLessThan(2_000);
  });

  it('a chat provider call (Slack, Teams): rejected, and it may have reached the provider', async () => {
    const { value, ms } = await timed(chatRequest('Slack', url, { method: 'POST', body: '{}', timeoutMs: 600 }).catch((e: unknown) => e));
    expect(value).toBeInstanceOf(ProviderHttpError);
    expect(value).toMatchObject({ status: null, reached: true });
    expect(ms).toBeLessThan(2_000);
  });

  it('a text provider call (Twilio, Sendblue): no answer, and it may have reached the provider', async () => {
    const { value, ms } = await timed(textRequest({ method: 'POST', url, body: '{}', timeoutMs: 600 }));
    expect(value).toMatchObject({ status: null, reached: true });
    expect(ms).toBeLessThan(2_000);
  });
});
