import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { FakeOAuth, readBody, receivedRaw, sendJson, type IncomingMail } from '../mailboxes/support/fake-oauth';

/*
 * A loopback stand-in for Google's OAuth 2.0 endpoints and the Gmail API, speaking their
 * documented wire format: GET /o/oauth2/v2/auth (consent, redirect with code), POST /token
 * (authorization_code with PKCE S256 checked, refresh_token, invalid_grant once revoked), POST
 * /revoke, and under /gmail/v1/users/me: profile, messages.send (raw), messages.list (q), messages.get
 * (format raw or metadata) and history.list (messageAdded, labelId, 404 for a too old id). It
 * records every API call with its Authorization header and every message sent; it delivers only
 * what a test hands it.
 */

export type GmailCall = { method: string; path: string; authorization: string | null; user: string | null };
type Stored = { id: string; threadId: string; labelIds: string[]; raw: Buffer; historyId: number; internalDate: number };

export type GmailFake = Awaited<ReturnType<typeof startGmailFake>>;

const GOOGLE_AR = (domain: string, r: 'pass' | 'fail' | 'none') =>
  r === 'none'
    ? 'mx.google.com; spf=neutral (google.com: 203.0.113.9 is neither permitted nor denied) smtp.mailfrom=other.example'
    : `mx.google.com;\r\n       dkim=${r} header.i=@${domain} header.s=s1 header.b=AbCdEf;\r\n       spf=${r} (google.com: domain of bounce@${domain} designates 203.0.113.9 as permitted sender) smtp.mailfrom=bounce@${domain};\r\n       dmarc=${r} (p=REJECT sp=REJECT dis=NONE) header.from=${domain}`;

export async function startGmailFake(opts: { clientId?: string; clientSecret?: string } = {}) {
  const mailboxes = new Map<string, { messages: Map<string, Stored>; historyId: number; oldestHistory: number }>();
  const calls: GmailCall[] = [];
  const sent: Array<{ user: string; authorization: string; raw: Buffer; id: string }> = [];
  let seq = 1000;
  const oauth = new FakeOAuth(opts.clientId ?? 'gmail-client', opts.clientSecret ?? 'gmail-secret', {
    rotateRefresh: false,
    expiresIn: 3599,
    defaultUser: () => [...mailboxes.keys()][0] ?? null,
  });
  const state = { failSendWith: null as number | null };

  function store(user: string, raw: Buffer, labelIds: string[]): Stored {
    const box = mailboxes.get(user)!;
    const id = (++seq).toString(16).padStart(16, '0');
    box.historyId += 7;
    const m: Stored = { id, threadId: id, labelIds, raw, historyId: box.historyId, internalDate: Date.now() };
    box.messages.set(id, m);
    return m;
  }

  async function matches(m: Stored, q: string): Promise<boolean> {
    const parsed = await simpleParser(m.raw);
    for (const term of q.split(/\s+/).filter(Boolean)) {
      const [k, v] = term.includes(':') ? [term.slice(0, term.indexOf(':')), term.slice(term.indexOf(':') + 1)] : ['', term];
      if (k === 'in' && !m.labelIds.includes(v.toUpperCase())) return false;
      else if (k === 'after' && m.internalDate / 1000 <= Number(v)) return false;
      else if (k === 'rfc822msgid' && parsed.messageId?.replace(/^<|>$/g, '') !== v) return false;
      else if (k === 'from' && !(parsed.from?.text ?? '').toLowerCase().includes(v.toLowerCase())) return false;
      else if (k === '' && !`${parsed.subject ?? ''} ${parsed.text ?? ''}`.toLowerCase().includes(v.toLowerCase())) return false;
    }
    return true;
  }

  async function api(req: http.IncomingMessage, res: http.ServerResponse, url: URL, user: string) {
    const box = mailboxes.get(user)!;
    const path = url.pathname.replace('/gmail/v1/users/me', '');
    if (req.method === 'GET' && path === '/profile') return sendJson(res, 200, { emailAddress: user, messagesTotal: box.messages.size, threadsTotal: box.messages.size, historyId: String(box.historyId) });
    if (req.method === 'POST' && path === '/messages/send') {
      const body = JSON.parse((await readBody(req)).toString('utf8')) as { raw?: string };
      if (!body.raw) return sendJson(res, 400, { error: { code: 400, message: "'raw' RFC822 payload message string or uploading message via /upload/* URL required", status: 'INVALID_ARGUMENT' } });
      if (state.failSendWith) return sendJson(res, state.failSendWith, { error: { code: state.failSendWith, message: 'Backend Error', status: 'UNAVAILABLE' } });
      const m = store(user, Buffer.from(body.raw, 'base64url'), ['SENT']);
      sent.push({ user, authorization: req.headers.authorization!, raw: m.raw, id: m.id });
      return sendJson(res, 200, { id: m.id, threadId: m.threadId, labelIds: m.labelIds });
    }
    if (req.method === 'GET' && path === '/messages') {
      const max = Number(url.searchParams.get('maxResults') ?? 100);
      const found: Stored[] = [];
      for (const m of [...box.messages.values()].reverse()) if (found.length < max && (await matches(m, url.searchParams.get('q') ?? ''))) found.push(m);
      return sendJson(res, 200, { ...(found.length ? { messages: found.map((m) => ({ id: m.id, threadId: m.threadId })) } : {}), resultSizeEstimate: found.length });
    }
    const one = /^\/messages\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && one) {
      const m = box.messages.get(decodeURIComponent(one[1]));
      if (!m) return sendJson(res, 404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
      const base = { id: m.id, threadId: m.threadId, labelIds: m.labelIds, historyId: String(m.historyId), internalDate: String(m.internalDate), sizeEstimate: m.raw.length };
      const parsed = await simpleParser(m.raw);
      const snippet = (parsed.text ?? '').slice(0, 100);
      if (url.searchParams.get('format') === 'raw') return sendJson(res, 200, { ...base, snippet, raw: m.raw.toString('base64url') });
      const wanted = url.searchParams.getAll('metadataHeaders').map((h) => h.toLowerCase());
      const headers = parsed.headerLines.map((l) => ({ name: l.line.slice(0, l.line.indexOf(':')), value: l.line.slice(l.line.indexOf(':') + 1).trim() })).filter((h) => wanted.includes(h.name.toLowerCase()));
      return sendJson(res, 200, { ...base, snippet, payload: { mimeType: 'text/plain', headers } });
    }
    if (req.method === 'GET' && path === '/history') {
      const start = Number(url.searchParams.get('startHistoryId'));
      if (!Number.isFinite(start) || start < box.oldestHistory) return sendJson(res, 404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
      const label = url.searchParams.get('labelId');
      const added = [...box.messages.values()].filter((m) => m.historyId > start && (!label || m.labelIds.includes(label)));
      return sendJson(res, 200, {
        ...(added.length ? { history: added.map((m) => ({ id: String(m.historyId), messages: [{ id: m.id, threadId: m.threadId }], messagesAdded: [{ message: { id: m.id, threadId: m.threadId, labelIds: m.labelIds } }] })) } : {}),
        historyId: String(box.historyId),
      });
    }
    sendJson(res, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://gmail.fake');
      if (req.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') {
        const r = oauth.authorize(url);
        return r.location ? res.writeHead(302, { Location: r.location }).end() : res.writeHead(r.status).end(r.body);
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        const r = oauth.token(new URLSearchParams((await readBody(req)).toString('utf8')));
        return sendJson(res, r.status, r.body);
      }
      if (req.method === 'POST' && url.pathname === '/revoke') {
        const t = new URLSearchParams((await readBody(req)).toString('utf8')).get('token') ?? '';
        return oauth.revokeToken(t) ? res.writeHead(200).end() : sendJson(res, 400, { error: 'invalid_token' });
      }
      if (url.pathname.startsWith('/gmail/v1/users/me')) {
        const user = oauth.userOf(req.headers.authorization);
        calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization ?? null, user });
        if (!user || !mailboxes.has(user)) return sendJson(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
        return api(req, res, url, user);
      }
      sendJson(res, 404, { error: { code: 404, message: 'Not Found' } });
    })().catch((e: unknown) => sendJson(res, 500, { error: { code: 500, message: String(e) } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    base,
    oauth,
    calls,
    sent,
    state,
    /** The environment that points Steward at this stand-in (spec 5 names). */
    env: { GOOGLE_CLIENT_ID: oauth.clientId, GOOGLE_CLIENT_SECRET: oauth.clientSecret, STEWARD_GOOGLE_AUTH_URL: `${base}/o/oauth2/v2/auth`, STEWARD_GOOGLE_TOKEN_URL: `${base}/token`, STEWARD_GMAIL_API_URL: base },
    addMailbox(address: string) {
      mailboxes.set(address.toLowerCase(), { messages: new Map(), historyId: 5000, oldestHistory: 0 });
    },
    /** A message arrives in the mailbox's INBOX, with Google's Authentication-Results on top. */
    async deliver(address: string, mail: IncomingMail): Promise<{ id: string; messageId: string }> {
      const { raw, messageId } = await receivedRaw(mail, GOOGLE_AR);
      return { id: store(address.toLowerCase(), raw, ['INBOX', 'UNREAD']).id, messageId };
    },
    /** Gmail forgets history older than now: a poll from an older id gets 404. */
    forgetHistory(address: string) {
      const box = mailboxes.get(address.toLowerCase())!;
      box.oldestHistory = box.historyId;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
