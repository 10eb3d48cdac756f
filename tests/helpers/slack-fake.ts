import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A loopback stand-in for Slack: the Web API methods Steward calls (oauth.v2.access, chat.postMessage,
 * chat.update, chat.postEphemeral, users.info, conversations.open, and the external file upload:
 * files.getUploadURLExternal, a POST of the bytes to the upload URL, files.completeUploadExternal:
 * HTTP 200 with `ok`, `error` on refusal, bot tokens checked), files people shared served from its
 * file host (`url_private_download`, the bot token of the file's workspace as Bearer; any other
 * request gets Slack's sign-in page with HTTP 200, as Slack answers it), and Slack's side of the callbacks: events and block actions POSTed to an app's request
 * URLs, signed as Slack signs them (v0: HMAC-SHA256 of `v0:<timestamp>:<body>` with the app's signing
 * secret, in X-Slack-Signature, with X-Slack-Request-Timestamp), event retries carrying
 * X-Slack-Retry-Num. Its own implementation of the signing, so a mistake in Steward's shows.
 */

export type SlackCall = { method: string; token: string | null; body: Record<string, unknown> };
/** A file shared by files.completeUploadExternal, with the bytes that were uploaded for it. */
export type SharedFile = { id: string; title: string; filename: string; contentType: string; content: Buffer };
export type Shared = { channel: string; text: string | null; threadTs: string | null; files: SharedFile[]; token: string; order: number };
/** A file a person shared, as Slack keeps it: served at its url_private_download. */
export type HostedFile = { id: string; team: string; name: string; mimetype: string; content: Buffer; status?: number };
export type FileRequest = { path: string; token: string | null };
/** `order`: when, among posted and shared messages (one count for both). */
export type Posted = { channel: string; ts: string; text: string; threadTs: string | null; blocks: Array<Record<string, unknown>> | null; token: string; order?: number };

type App = { clientId: string; clientSecret: string; signingSecret: string };
type Grant = { team: string; authedUser: string; botUserId?: string; botToken?: string };

export type SlackFake = Awaited<ReturnType<typeof startSlackFake>>;

const json = (res: http.ServerResponse, body: unknown) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

export async function startSlackFake() {
  const apps = new Map<string, App>();
  const grants = new Map<string, Grant>();
  const botTokens = new Map<string, { team: string; botUserId: string }>();
  const users = new Map<string, { id: string; team: string; name: string; email: string }>();
  const calls: SlackCall[] = [];
  const posted: Posted[] = [];
  const updates: Array<{ channel: string; ts: string; text: string; blocks: unknown }> = [];
  const ephemeral: Array<{ channel: string; user: string; text: string }> = [];
  /** Files asked for and (once their bytes came) uploaded, not yet shared: Slack discards those never completed. */
  const uploads = new Map<string, { filename: string; length: number; token: string; content: Buffer | null; contentType: string }>();
  const shared: Shared[] = [];
  const hosted = new Map<string, HostedFile>();
  const fileRequests: FileRequest[] = [];
  /** `failNext`: the next chat.postMessage (`message`) or files.completeUploadExternal (`file`) is refused as Slack refuses a channel it does not know. */
  /** `gone`: users (or channels) every post to is refused as channel_not_found, as for a person who left the workspace. */
  const state = { delayMs: 0, refuseUploads: false, failNext: null as 'message' | 'file' | null, gone: new Set<string>() };
  let order = 0;
  let seq = 0;
  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      // The file host: /files-pri/<team>-<file id>/download/<name>, for the bot token of the file's workspace.
      const hostedId = /^\/files-pri\/[A-Z0-9]+-([A-Z0-9]+)\/(?:download\/)?[^/]+$/.exec(url.pathname)?.[1];
      if (hostedId && req.method === 'GET') {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
        fileRequests.push({ path: url.pathname, token });
        const file = hosted.get(hostedId);
        if (!file) {
          res.writeHead(404, { 'Content-Type': 'text/plain' });
          return res.end('file_not_found');
        }
        if (!token || botTokens.get(token)?.team !== file.team) {
          res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
          return res.end('<!DOCTYPE html><html><body>Sign in to Slack</body></html>');
        }
        if (file.status && file.status !== 200) {
          res.writeHead(file.status, { 'Content-Type': 'text/plain' });
          return res.end('refused');
        }
        res.writeHead(200, { 'Content-Type': file.mimetype, 'Content-Length': String(file.content.length) });
        return res.end(file.content);
      }
      // The upload URL files.getUploadURLExternal gave: the raw bytes of one file, answered as Slack does ("OK - <length>").
      const uploadId = /^\/upload\/([A-Z0-9]+)$/.exec(url.pathname)?.[1];
      if (uploadId) {
        const wanted = uploads.get(uploadId);
        const content = Buffer.concat(chunks);
        if (!wanted || state.refuseUploads) {
          res.writeHead(wanted ? 500 : 404, { 'Content-Type': 'text/plain' });
          return res.end('upload refused');
        }
        wanted.content = content;
        wanted.contentType = String(req.headers['content-type'] ?? '');
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        return res.end(`OK - ${content.length}`);
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      const method = url.pathname.replace(/^\/api\//, '');
      const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      let body: Record<string, unknown> = {};
      try {
        body = isForm ? Object.fromEntries(new URLSearchParams(raw)) : raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        return json(res, { ok: false, error: 'invalid_json' });
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
      calls.push({ method, token, body });
      setTimeout(() => answer(method, token, body, res), state.delayMs);
    });
  });

  function answer(method: string, token: string | null, body: Record<string, unknown>, res: http.ServerResponse) {
    if (method === 'oauth.v2.access') {
      const app = [...apps.values()].find((a) => a.clientId === body.client_id);
      if (!app || app.clientSecret !== body.client_secret) return json(res, { ok: false, error: 'invalid_client' });
      const grant = grants.get(String(body.code));
      if (!grant) return json(res, { ok: false, error: 'invalid_code' });
      grants.delete(String(body.code));
      const botToken = grant.botToken ?? `xoxb-${randomBytes(8).toString('hex')}`;
      const botUserId = grant.botUserId ?? 'UBOT';
      botTokens.set(botToken, { team: grant.team, botUserId });
      return json(res, {
        ok: true,
        access_token: botToken,
        token_type: 'bot',
        scope: 'chat:write,im:history',
        bot_user_id: botUserId,
        app_id: 'AFAKE',
        team: { id: grant.team, name: 'Fake workspace' },
        authed_user: { id: grant.authedUser, scope: 'identity.basic', access_token: `xoxp-${randomBytes(6).toString('hex')}`, token_type: 'user' },
      });
    }
    const bot = token ? botTokens.get(token) : undefined;
    if (!bot) return json(res, { ok: false, error: 'invalid_auth' });
    if (method === 'chat.postMessage') {
      const asked = String(body.channel ?? '');
      if (!asked || state.failNext === 'message' || state.gone.has(asked)) {
        if (!state.gone.has(asked)) state.failNext = null;
        return json(res, { ok: false, error: 'channel_not_found' });
      }
      // Posting to a user id opens (or reuses) the app's DM with them, as Slack does.
      const channel = asked.startsWith('U') ? `D${asked.slice(1)}` : asked;
      const ts = nextTs();
      posted.push({ channel, ts, text: String(body.text ?? ''), threadTs: typeof body.thread_ts === 'string' ? body.thread_ts : null, blocks: (body.blocks as Posted['blocks']) ?? null, token: token!, order: ++order });
      return json(res, { ok: true, channel, ts, message: { text: body.text, ts } });
    }
    if (method === 'chat.update') {
      const hit = posted.find((p) => p.channel === body.channel && p.ts === body.ts);
      if (!hit) return json(res, { ok: false, error: 'message_not_found' });
      updates.push({ channel: String(body.channel), ts: String(body.ts), text: String(body.text ?? ''), blocks: body.blocks });
      return json(res, { ok: true, channel: body.channel, ts: body.ts, text: body.text });
    }
    if (method === 'chat.postEphemeral') {
      ephemeral.push({ channel: String(body.channel), user: String(body.user), text: String(body.text ?? '') });
      return json(res, { ok: true, message_ts: nextTs() });
    }
    if (method === 'conversations.open') {
      const user = String(body.users ?? '');
      if (!/^[UW]/.test(user)) return json(res, { ok: false, error: 'user_not_found' });
      return json(res, { ok: true, channel: { id: `D${user.slice(1)}` } });
    }
    if (method === 'files.getUploadURLExternal') {
      const length = Number(body.length);
      if (!body.filename || !Number.isInteger(length) || length < 1) return json(res, { ok: false, error: 'invalid_arguments' });
      const fileId = `F${randomBytes(5).toString('hex').toUpperCase()}`;
      uploads.set(fileId, { filename: String(body.filename), length, token: token!, content: null, contentType: '' });
      return json(res, { ok: true, upload_url: `${base}/upload/${fileId}`, file_id: fileId });
    }
    if (method === 'files.completeUploadExternal') {
      if (state.failNext === 'file') {
        state.failNext = null;
        return json(res, { ok: false, error: 'channel_not_found' });
      }
      const listed = Array.isArray(body.files) ? (body.files as Array<{ id?: string; title?: string }>) : [];
      const ready = listed.map((f) => ({ f, up: uploads.get(String(f.id)) }));
      if (!listed.length || ready.some((r) => !r.up || r.up.token !== token || !r.up.content || r.up.content.length !== r.up.length)) return json(res, { ok: false, error: 'file_upload_incomplete' });
      const files = ready.map(({ f, up }) => ({ id: String(f.id), title: f.title ?? up!.filename, filename: up!.filename, contentType: up!.contentType, content: up!.content! }));
      for (const f of files) uploads.delete(f.id);
      shared.push({ channel: String(body.channel_id ?? ''), text: typeof body.initial_comment === 'string' ? body.initial_comment : null, threadTs: typeof body.thread_ts === 'string' ? body.thread_ts : null, files, token: token!, order: ++order });
      return json(res, { ok: true, files: files.map((f) => ({ id: f.id, title: f.title })) });
    }
    if (method === 'users.info') {
      const u = users.get(String(body.user));
      if (!u) return json(res, { ok: false, error: 'user_not_found' });
      return json(res, { ok: true, user: { id: u.id, team_id: u.team, name: u.name, real_name: u.name, profile: { email: u.email, display_name: u.name } } });
    }
    if (method === 'users.lookupByEmail') {
      const wanted = String(body.email ?? '').toLowerCase();
      const u = [...users.values()].find((x) => x.team === bot.team && x.email.toLowerCase() === wanted);
      if (!u) return json(res, { ok: false, error: 'users_not_found' });
      return json(res, { ok: true, user: { id: u.id, team_id: u.team, name: u.name, real_name: u.name, profile: { email: u.email, display_name: u.name } } });
    }
    return json(res, { ok: false, error: 'unknown_method' });
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Signs a body as Slack does for the app's signing secret (v0). */
  const sign = (secret: string, timestamp: number, body: string) => `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

  type SendOpts = { retryNum?: number; timestamp?: number; secret?: string; unsigned?: boolean };
  /** The headers Slack sends with a callback body. */
  function headersFor(secret: string, body: string, contentType: string, opts: SendOpts = {}): Record<string, string> {
    const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = { 'Content-Type': contentType, 'User-Agent': 'Slackbot 1.0 (+https://api.slack.com/robots)' };
    if (!opts.unsigned) {
      headers['X-Slack-Request-Timestamp'] = String(timestamp);
      headers['X-Slack-Signature'] = sign(opts.secret ?? secret, timestamp, body);
    }
    if (opts.retryNum) {
      headers['X-Slack-Retry-Num'] = String(opts.retryNum);
      headers['X-Slack-Retry-Reason'] = 'http_timeout';
    }
    return headers;
  }
  const eventBody = (e: { team: string; eventId?: string; event: Record<string, unknown> }) =>
    JSON.stringify({ token: 'legacy', team_id: e.team, api_app_id: 'AFAKE', type: 'event_callback', event_id: e.eventId ?? `Ev${randomBytes(6).toString('hex')}`, event_time: Math.floor(Date.now() / 1000), event: e.event });
  type Press = { team: string; user: string; message: Pick<Posted, 'channel' | 'ts' | 'text' | 'blocks'>; actionId: string; trigger?: string };
  function pressBody(p: Press): string {
    const button = (p.message.blocks ?? []).flatMap((b) => ((b.elements as Array<Record<string, unknown>>) ?? [])).find((el) => el.action_id === p.actionId);
    const payload = {
      type: 'block_actions',
      token: 'legacy',
      api_app_id: 'AFAKE',
      team: { id: p.team, domain: 'fake' },
      user: { id: p.user, team_id: p.team, username: p.user, name: p.user },
      channel: { id: p.message.channel, name: 'directmessage' },
      container: { type: 'message', message_ts: p.message.ts, channel_id: p.message.channel, is_ephemeral: false },
      message: { type: 'message', ts: p.message.ts, text: p.message.text, blocks: p.message.blocks },
      response_url: `${base}/response/${p.message.ts}`,
      trigger_id: p.trigger ?? randomBytes(6).toString('hex'),
      actions: [{ type: 'button', action_id: p.actionId, block_id: 'b', value: button?.value ?? '', action_ts: String(Date.now() / 1000) }],
    };
    return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  }
  async function deliver(url: string, secret: string, body: string, contentType: string, opts: SendOpts = {}) {
    const headers = headersFor(secret, body, contentType, opts);
    const started = performance.now();
    const res = await fetch(url, { method: 'POST', headers, body });
    const text = await res.text();
    return { status: res.status, text, ms: performance.now() - started };
  }

  return {
    apiUrl: `${base}/api`,
    /** Slack's file host (STEWARD_SLACK_FILES_URL). */
    filesUrl: base,
    /** Every request for a shared file's bytes, in order. */
    fileRequests,
    tokenUrl: `${base}/api/oauth.v2.access`,
    calls,
    posted,
    /** Messages with files, as files.completeUploadExternal shared them (with the uploaded bytes). */
    shared,
    updates,
    ephemeral,
    state,
    /** An app created in Slack: what its Basic Information page shows. */
    createApp(name: string): App {
      const app = { clientId: `${Date.now() % 1e10}.${Math.floor(Math.random() * 1e10)}`, clientSecret: randomBytes(16).toString('hex'), signingSecret: randomBytes(16).toString('hex') };
      apps.set(name, app);
      return app;
    },
    /** The person approved the app in Slack: the code the browser brings back. */
    grant(g: Grant): string {
      const code = `code-${randomBytes(6).toString('hex')}`;
      grants.set(code, g);
      return code;
    },
    addUser(u: { id: string; team: string; name: string; email: string }) {
      users.set(u.id, u);
    },
    /** A person shared a file in the workspace: its file object, as a message event carries it. `status` makes the host refuse it. */
    shareFile(f: Omit<HostedFile, 'id'>): Record<string, unknown> {
      const id = `F${randomBytes(5).toString('hex').toUpperCase()}`;
      hosted.set(id, { ...f, id });
      const path = `${base}/files-pri/${f.team}-${id}`;
      return {
        id,
        name: f.name,
        title: f.name,
        mimetype: f.mimetype,
        filetype: f.name.split('.').pop() ?? 'binary',
        size: f.content.length,
        mode: 'hosted',
        is_external: false,
        is_public: false,
        url_private: `${path}/${encodeURIComponent(f.name)}`,
        url_private_download: `${path}/download/${encodeURIComponent(f.name)}`,
      };
    },
    /** An Events API callback, wrapped as Slack wraps it. */
    event(url: string, secret: string, e: { team: string; eventId?: string; event: Record<string, unknown> }, opts: SendOpts = {}) {
      return deliver(url, secret, eventBody(e), 'application/json', opts);
    },
    /** The same callback as the request Steward's webhook reads (headers and body), without sending it. */
    eventRequest(secret: string, e: { team: string; eventId?: string; event: Record<string, unknown> }, opts: SendOpts = {}) {
      const body = eventBody(e);
      return { headers: new Headers(headersFor(secret, body, 'application/json', opts)), rawBody: Buffer.from(body) };
    },
    /** A block_actions press as the request Steward's webhook reads, without sending it. */
    pressRequest(secret: string, p: Press, opts: SendOpts = {}) {
      const body = pressBody(p);
      return { headers: new Headers(headersFor(secret, body, 'application/x-www-form-urlencoded', opts)), rawBody: Buffer.from(body) };
    },
    urlVerification(url: string, secret: string, challenge: string, opts: SendOpts = {}) {
      return deliver(url, secret, JSON.stringify({ token: 'legacy', challenge, type: 'url_verification' }), 'application/json', opts);
    },
    /** A block_actions payload for a button press on a posted message, form-encoded as Slack sends it. */
    press(url: string, secret: string, p: Press, opts: SendOpts = {}) {
      return deliver(url, secret, pressBody(p), 'application/x-www-form-urlencoded', opts);
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
