import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';

/**
 * A loopback Sendblue (iMessage): its send API (POST /api/send-message to one number,
 * /api/send-group-message to a group, the key pair in sb-api-key-id / sb-api-secret-key) records
 * what would have been sent and answers as Sendblue does; `receive` posts a received message to
 * Steward's webhook with the webhook secret in `sb-signing-secret`, as Sendblue's dashboard sets it.
 * Its number lookup (GET /api/evaluate-service?number=…) answers `{number, service}`: `iMessage`
 * for the numbers put in `services` as such, `SMS` otherwise; each lookup is recorded in `lookups`.
 *
 * Files, as Sendblue's docs describe them: POST /api/upload-file (multipart, field `file`) keeps
 * the bytes on its "CDN" (GET /cdn/<id>_<name>, no key) and answers 201 `{status, media_url}`;
 * a send-message with a `media_url` is taken only when that URL ends with a file extension, has no
 * query (no signed URLs) and fetching it answers 200 with at most 5 MB: the bytes fetched are
 * recorded on the send (`media`). Otherwise it answers 400 ERROR and records nothing in `sent`
 * (kept in `refused`): real Sendblue may instead accept and fail the message later, which a
 * stand-in that refuses at once shows no less strictly.
 */

export type SendblueMedia = { url: string; status: number; contentType: string | null; bytes: Buffer };
export type SendblueSent = { path: string; body: Record<string, unknown>; media?: SendblueMedia };
export type SendblueUpload = { filename: string; contentType: string; bytes: Buffer; mediaUrl: string };

const MAX_MEDIA_BYTES = 5 * 1024 * 1024;

/** Sendblue fetching a send's media_url, or why it would not. */
async function fetchMedia(url: string): Promise<SendblueMedia | { problem: string }> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { problem: 'media_url is not a URL' };
  }
  if (u.search) return { problem: 'media_url does not support signed urls' };
  if (!/\.[A-Za-z0-9]{1,8}$/.test(u.pathname)) return { problem: 'media_url must end with the proper file extension' };
  const res = await fetch(u).catch(() => null);
  if (!res) return { problem: 'media_url could not be fetched' };
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) return { problem: `media_url answered ${res.status}` };
  if (bytes.length > MAX_MEDIA_BYTES) return { problem: 'Files are currently capped at 5MB' };
  return { url, status: res.status, contentType: res.headers.get('content-type'), bytes };
}

export async function startSendblueFake(opts: { key?: string; secret?: string; webhookSecret?: string } = {}) {
  const key = opts.key ?? 'sb-key';
  const secret = opts.secret ?? 'sb-secret';
  const webhookSecret = opts.webhookSecret ?? 'sb-webhook-secret';
  const sent: SendblueSent[] = [];
  const refused: Array<SendblueSent & { reason: string }> = [];
  const uploads: SendblueUpload[] = [];
  const cdn = new Map<string, { contentType: string; bytes: Buffer }>();
  const lookups: string[] = [];
  /** The service the lookup names for a number (`iMessage` or `SMS`; unlisted numbers are `SMS`). */
  const services = new Map<string, string>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://sendblue.local');
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      // The CDN is public, as Sendblue's storage links are.
      if (req.method === 'GET' && url.pathname.startsWith('/cdn/')) {
        const kept = cdn.get(url.pathname);
        if (!kept) return json(404, { message: 'not found' });
        res.writeHead(200, { 'Content-Type': kept.contentType, 'Content-Length': String(kept.bytes.length) });
        return res.end(kept.bytes);
      }
      if (req.headers['sb-api-key-id'] !== key || req.headers['sb-api-secret-key'] !== secret) return json(401, { status: 'ERROR', message: 'unauthorized' });
      if (req.method === 'POST' && url.pathname === '/api/upload-file') {
        const form = await new Request('http://sendblue.local/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type'] ?? '') }, body: raw })
          .formData()
          .catch(() => null);
        const file = form?.get('file');
        if (!file || typeof file === 'string') return json(400, { status: 'ERROR', message: 'No file uploaded' });
        const id = `${randomUUID().slice(0, 8)}_${file.name.replace(/[^A-Za-z0-9._-]/g, '_')}`;
        const bytes = Buffer.from(await file.arrayBuffer());
        cdn.set(`/cdn/${id}`, { contentType: file.type || 'application/octet-stream', bytes });
        const mediaUrl = `${base}/cdn/${id}`;
        uploads.push({ filename: file.name, contentType: file.type, bytes, mediaUrl });
        return json(201, { status: 'OK', message: 'File uploaded successfully', media_url: mediaUrl, mediaObjectId: id });
      }
      if (req.method === 'GET' && url.pathname === '/api/evaluate-service') {
        const number = url.searchParams.get('number') ?? '';
        lookups.push(number);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ number, service: services.get(number) ?? 'SMS' }));
      }
      const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      let media: SendblueMedia | undefined;
      if (typeof body.media_url === 'string' && body.media_url) {
        const got = await fetchMedia(body.media_url);
        if ('problem' in got) {
          refused.push({ path: req.url ?? '', body, reason: got.problem });
          return json(400, { status: 'ERROR', error_message: got.problem });
        }
        media = got;
      }
      sent.push({ path: req.url ?? '', body, ...(media ? { media } : {}) });
      json(202, { message_handle: randomUUID(), status: 'QUEUED', from_number: body.from_number, number: body.number ?? null, content: body.content, media_url: body.media_url ?? null });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    sent,
    refused,
    uploads,
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

/**
 * The stand-in for a test file: started before its tests with Steward pointed at it (and loopback
 * allowed as a provider address), the environment put back and the stand-in closed after them.
 */
export function useSendblueFake(): () => SendblueFake {
  let fake: SendblueFake | undefined;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    fake = await startSendblueFake();
    for (const [k, v] of Object.entries({ ...fake.env, STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.0/8' })) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await fake?.close();
  });
  return () => fake!;
}
