import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { FakeOAuth, readBody, receivedRaw, sendJson, type IncomingMail } from '../mailboxes/support/fake-oauth';

/*
 * A loopback stand-in for the Microsoft identity platform (v2.0 authorize and token endpoints:
 * PKCE S256 checked, refresh tokens rotated on every use, invalid_grant once revoked) and for
 * Microsoft Graph v1.0 mail: /me, messages created from MIME (base64, text/plain) and sent,
 * $search, $value, Sent Items by internetMessageId, the Inbox's delta (deltaLink, 410 for an
 * unknown token), and subscriptions. Creating a subscription first POSTs the validation token to
 * the notification URL and expects it back as text/plain within 10 seconds; a delivered message
 * is then notified there with the subscription's clientState. It records every API call, every
 * message sent and every notification's answer.
 */

export type GraphCall = { method: string; path: string; authorization: string | null; prefer: string | null; user: string | null };
type Stored = { id: string; folder: 'Inbox' | 'Drafts' | 'SentItems'; raw: Buffer; received: Date; seq: number };
type Subscription = { id: string; user: string; notificationUrl: string; clientState: string; resource: string; expirationDateTime: string };

export type GraphFake = Awaited<ReturnType<typeof startGraphFake>>;

/** Exchange Online's verdict as it stamps it: no authserv-id, EOP's compauth, and the AuthAs header only Exchange can set (mail from outside the tenant). */
const EXCHANGE_AR = (domain: string, r: 'pass' | 'fail' | 'none') =>
  (r === 'none'
    ? 'spf=none (sender IP is 203.0.113.9) smtp.mailfrom=other.example; dkim=none (message not signed) header.d=none;dmarc=none action=none header.from=other.example;compauth=softpass reason=201'
    : `spf=${r} (sender IP is 203.0.113.9) smtp.mailfrom=${domain}; dkim=${r} (signature was verified) header.d=${domain};dmarc=${r} action=none header.from=${domain};compauth=${r} reason=100`) +
  '\r\nX-MS-Exchange-Organization-AuthAs: Anonymous';

const graphError = (res: http.ServerResponse, status: number, code: string, message: string) => sendJson(res, status, { error: { code, message } });

export async function startGraphFake(opts: { clientId?: string; clientSecret?: string; tenant?: string } = {}) {
  const tenant = opts.tenant ?? 'common';
  const mailboxes = new Map<string, Map<string, Stored>>();
  const subscriptions = new Map<string, Subscription>();
  const calls: GraphCall[] = [];
  const sent: Array<{ user: string; authorization: string; raw: Buffer; id: string }> = [];
  const validations: Array<{ status: number; echoed: string; contentType: string | null }> = [];
  const notifications: Array<{ subscriptionId: string; status: number }> = [];
  let seq = 0;
  const oauth = new FakeOAuth(opts.clientId ?? 'graph-client', opts.clientSecret ?? 'graph-secret', {
    rotateRefresh: true,
    expiresIn: 3599,
    defaultUser: () => [...mailboxes.keys()][0] ?? null,
  });

  const store = (user: string, folder: Stored['folder'], raw: Buffer): Stored => {
    const m: Stored = { id: `AAkALgAA${randomBytes(12).toString('base64url')}`, folder, raw, received: new Date(), seq: ++seq };
    mailboxes.get(user)!.set(m.id, m);
    return m;
  };

  async function summary(m: Stored) {
    const p = await simpleParser(m.raw);
    const a = p.from?.value[0];
    return {
      id: m.id,
      subject: p.subject ?? null,
      from: a ? { emailAddress: { name: a.name || null, address: a.address ?? null } } : null,
      receivedDateTime: m.received.toISOString(),
      bodyPreview: (p.text ?? '').slice(0, 255),
      internetMessageId: p.messageId ?? null,
    };
  }

  /** Graph checks the notification URL before it creates a subscription. */
  async function validate(notificationUrl: string): Promise<boolean> {
    const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomBytes(8).toString('hex')}`;
    const url = new URL(notificationUrl);
    url.searchParams.set('validationToken', token);
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '', signal: AbortSignal.timeout(10_000) });
      const echoed = await res.text();
      validations.push({ status: res.status, echoed, contentType: res.headers.get('content-type') });
      return res.status === 200 && echoed === token && (res.headers.get('content-type') ?? '').startsWith('text/plain');
    } catch {
      validations.push({ status: 0, echoed: '', contentType: null });
      return false;
    }
  }

  async function notify(sub: Subscription, messageId: string, clientState = sub.clientState) {
    const body = {
      value: [
        {
          subscriptionId: sub.id,
          subscriptionExpirationDateTime: sub.expirationDateTime,
          changeType: 'created',
          resource: `Users/${sub.user}/Messages/${messageId}`,
          resourceData: { '@odata.type': '#Microsoft.Graph.Message', '@odata.id': `Users/${sub.user}/Messages/${messageId}`, '@odata.etag': 'W/"CQAAABYAAAA"', id: messageId },
          clientState,
          tenantId: '00000000-0000-0000-0000-000000000000',
        },
      ],
    };
    const res = await fetch(sub.notificationUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    notifications.push({ subscriptionId: sub.id, status: res.status });
    return res.status;
  }

  async function api(req: http.IncomingMessage, res: http.ServerResponse, url: URL, user: string) {
    const box = mailboxes.get(user)!;
    const path = decodeURIComponent(url.pathname.replace('/v1.0', ''));
    const q = url.searchParams;
    if (req.method === 'GET' && path === '/me') return sendJson(res, 200, { mail: user, userPrincipalName: user });
    if (req.method === 'POST' && path === '/me/messages') {
      if (!(req.headers['content-type'] ?? '').startsWith('text/plain')) return graphError(res, 400, 'ErrorInvalidRequest', 'expected MIME as base64 text/plain');
      const raw = Buffer.from((await readBody(req)).toString('ascii'), 'base64');
      const m = store(user, 'Drafts', raw);
      const p = await simpleParser(raw);
      return sendJson(res, 201, { id: m.id, isDraft: true, internetMessageId: p.messageId ?? null, subject: p.subject ?? null });
    }
    const send = /^\/me\/messages\/([^/]+)\/send$/.exec(path);
    if (req.method === 'POST' && send) {
      const m = box.get(send[1]);
      if (!m || m.folder !== 'Drafts') return graphError(res, 404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
      m.folder = 'SentItems';
      sent.push({ user, authorization: req.headers.authorization!, raw: m.raw, id: m.id });
      return res.writeHead(202).end();
    }
    if (req.method === 'GET' && path === '/me/messages') {
      const term = (q.get('$search') ?? '').replace(/^"|"$/g, '').toLowerCase();
      const top = Number(q.get('$top') ?? 10);
      const found: unknown[] = [];
      for (const m of [...box.values()].filter((x) => x.folder !== 'Drafts').sort((a, b) => b.seq - a.seq)) {
        const p = await simpleParser(m.raw);
        if (found.length < top && `${p.subject ?? ''} ${p.text ?? ''} ${p.from?.text ?? ''}`.toLowerCase().includes(term)) found.push(await summary(m));
      }
      return sendJson(res, 200, { value: found });
    }
    const value = /^\/me\/messages\/([^/]+)\/\$value$/.exec(path);
    if (req.method === 'GET' && value) {
      const m = box.get(value[1]);
      if (!m) return graphError(res, 404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
      return res.writeHead(200, { 'Content-Type': 'text/plain' }).end(m.raw);
    }
    if (req.method === 'GET' && path === '/me/mailFolders/SentItems/messages') {
      const wanted = /internetMessageId eq '(.+)'/.exec(q.get('$filter') ?? '')?.[1]?.replace(/''/g, "'");
      const found: unknown[] = [];
      for (const m of box.values()) if (m.folder === 'SentItems' && (await simpleParser(m.raw)).messageId === wanted) found.push({ id: m.id });
      return sendJson(res, 200, { value: found });
    }
    if (req.method === 'GET' && path === '/me/mailFolders/Inbox/messages/delta') {
      const token = q.get('$deltatoken');
      let after: number;
      if (token !== null) {
        if (!/^\d+$/.test(token) || Number(token) > seq) return graphError(res, 410, 'SyncStateNotFound', 'The sync state generation is not found.');
        after = Number(token);
      } else {
        const since = /receivedDateTime ge (\S+)/.exec(q.get('$filter') ?? '')?.[1];
        const sinceAt = since ? new Date(since).getTime() : 0;
        after = Math.min(...[...box.values()].filter((m) => m.received.getTime() >= sinceAt).map((m) => m.seq - 1), seq);
      }
      const added = [...box.values()].filter((m) => m.folder === 'Inbox' && m.seq > after).sort((a, b) => a.seq - b.seq);
      return sendJson(res, 200, { value: added.map((m) => ({ id: m.id })), '@odata.deltaLink': `${base}/v1.0/me/mailFolders/Inbox/messages/delta?$deltatoken=${seq}` });
    }
    if (req.method === 'POST' && path === '/subscriptions') {
      const body = JSON.parse((await readBody(req)).toString('utf8')) as Partial<Subscription> & { changeType?: string };
      if (!body.notificationUrl || !body.resource || !body.expirationDateTime) return graphError(res, 400, 'InvalidRequest', 'missing properties');
      if (!(await validate(body.notificationUrl))) return graphError(res, 400, 'ValidationError', 'Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.');
      const sub: Subscription = { id: randomBytes(16).toString('hex'), user, notificationUrl: body.notificationUrl, clientState: body.clientState ?? '', resource: body.resource, expirationDateTime: body.expirationDateTime };
      subscriptions.set(sub.id, sub);
      return sendJson(res, 201, { ...sub, changeType: body.changeType });
    }
    const subPath = /^\/subscriptions\/([^/]+)$/.exec(path);
    if (subPath && (req.method === 'PATCH' || req.method === 'DELETE')) {
      const sub = subscriptions.get(subPath[1]);
      if (!sub || sub.user !== user) return graphError(res, 404, 'ResourceNotFound', 'The object was not found.');
      if (req.method === 'DELETE') {
        subscriptions.delete(sub.id);
        return res.writeHead(204).end();
      }
      sub.expirationDateTime = (JSON.parse((await readBody(req)).toString('utf8')) as { expirationDateTime: string }).expirationDateTime;
      return sendJson(res, 200, sub);
    }
    graphError(res, 404, 'BadRequest', `Resource not found for the segment '${path}'.`);
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://graph.fake');
      if (req.method === 'GET' && url.pathname === `/${tenant}/oauth2/v2.0/authorize`) {
        const r = oauth.authorize(url);
        return r.location ? res.writeHead(302, { Location: r.location }).end() : res.writeHead(r.status).end(r.body);
      }
      if (req.method === 'POST' && url.pathname === `/${tenant}/oauth2/v2.0/token`) {
        const r = oauth.token(new URLSearchParams((await readBody(req)).toString('utf8')));
        return sendJson(res, r.status, r.body);
      }
      if (url.pathname.startsWith('/v1.0/')) {
        const user = oauth.userOf(req.headers.authorization);
        calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization ?? null, prefer: (req.headers.prefer as string) ?? null, user });
        if (!user || !mailboxes.has(user)) return graphError(res, 401, 'InvalidAuthenticationToken', 'Access token is empty or invalid.');
        return api(req, res, url, user);
      }
      sendJson(res, 404, { error: 'not found' });
    })().catch((e: unknown) => graphError(res, 500, 'InternalServerError', String(e)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    base,
    oauth,
    calls,
    sent,
    validations,
    notifications,
    subscriptions,
    env: { MICROSOFT_CLIENT_ID: oauth.clientId, MICROSOFT_CLIENT_SECRET: oauth.clientSecret, STEWARD_MICROSOFT_LOGIN_URL: base, STEWARD_GRAPH_API_URL: `${base}/v1.0`, MICROSOFT_TENANT: tenant },
    addMailbox(address: string) {
      mailboxes.set(address.toLowerCase(), new Map());
    },
    /**
     * A message arrives in the Inbox, with Exchange's Authentication-Results on top; each of the
     * mailbox's subscriptions is notified (with `clientState` instead of its own, to forge one)
     * unless `notify` is false. The notification answers' statuses are returned.
     */
    async deliver(address: string, mail: IncomingMail, o: { notify?: boolean; clientState?: string } = {}): Promise<{ id: string; messageId: string; notified: number[] }> {
      const { raw, messageId } = await receivedRaw(mail, EXCHANGE_AR);
      const m = store(address.toLowerCase(), 'Inbox', raw);
      const notified: number[] = [];
      if (o.notify !== false) for (const sub of subscriptions.values()) if (sub.user === address.toLowerCase()) notified.push(await notify(sub, m.id, o.clientState));
      return { id: m.id, messageId, notified };
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
