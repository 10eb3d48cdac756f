import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

/**
 * A loopback Sendblue (iMessage): its send API (POST /api/send-message to one number,
 * /api/send-group-message to a group, the key pair in sb-api-key-id / sb-api-secret-key) records
 * what would have been sent and answers as Sendblue does; `receive` posts a received message to
 * Steward's webhook with the webhook secret in `sb-signing-secret`, as Sendblue's dashboard sets it.
 * Its number lookup (GET /api/evaluate-service?number=…) answers `{number, service}`: `iMessage`
 * for the numbers put in `services` as such, `SMS` otherwise; each lookup is recorded in `lookups`.
 */

export type SendblueSent = { path: string; body: Record<string, unknown> };

export async function startSendblueFake(opts: { key?: string; secret?: string; webhookSecret?: string } = {}) {
  const key = opts.key ?? 'sb-key';
  const secret = opts.secret ?? 'sb-secret';
  const webhookSecret = opts.webhookSecret ?? 'sb-webhook-secret';
  const sent: SendblueSent[] = [];
  const lookups: string[] = [];
  /** The service the lookup names for a number (`iMessage` or `SMS`; unlisted numbers are `SMS`). */
  const services = new Map<string, string>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.headers['sb-api-key-id'] !== key || req.headers['sb-api-secret-key'] !== secret) {
        res.writeHead(401, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ status: 'ERROR', message: 'unauthorized' }));
      }
      const url = new URL(req.url ?? '/', 'http://sendblue.local');
      if (req.method === 'GET' && url.pathname === '/api/evaluate-service') {
        const number = url.searchParams.get('number') ?? '';
        lookups.push(number);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ number, service: services.get(number) ?? 'SMS' }));
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      sent.push({ path: req.url ?? '', body });
      res.writeHead(202, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message_handle: randomUUID(), status: 'QUEUED', from_number: body.from_number, number: body.number ?? null, content: body.content }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    sent,
    lookups,
    services,
    env: { SENDBLUE_API_KEY: key, SENDBLUE_API_SECRET: secret, SENDBLUE_WEBHOOK_SECRET: webhookSecret, STEWARD_SENDBLUE_API_URL: base },
    /** Sendblue posting a received message to Steward (`signingSecret: null` sends none). */
    receive: (body: Record<string, unknown>, signingSecret: string | null = webhookSecret) =>
      fetch(`${process.env.STEWARD_PUBLIC_URL}/api/channels/sendblue/messages`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(signingSecret ? { 'sb-signing-secret': signingSecret } : {}) },
        body: JSON.stringify({ accountEmail: 'ops@example.com', is_outbound: false, status: 'RECEIVED', media_url: '', service: 'iMessage', message_handle: randomUUID(), ...body }),
      }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type SendblueFake = Awaited<ReturnType<typeof startSendblueFake>>;
