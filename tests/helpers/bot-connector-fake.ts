import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

/*
 * A loopback stand-in for the Bot Framework as a bot sees it: the client-credentials token endpoint
 * (botframework.com tenant), the OpenID metadata and its signing keys (with `endorsements`), and a
 * Bot Connector (serviceUrl) whose conversations API (send, reply, update, members) checks the
 * bot's token. It sends activities to a bot's messaging endpoint the way the Connector does: with a
 * RS256 JWT signed by one of its keys, issuer https://api.botframework.com, audience the bot's app
 * id and a serviceUrl claim. Options make a token wrong (issuer, audience, serviceUrl, key).
 * Files a person sends (issue 41): a shared file's pre-authenticated download URL (`/files/…`, its
 * `tempauth` in the query, no token wanted) and an inline image under the Connector
 * (`/connector/v3/attachments/{id}/views/original`, the bot's token required); every request for
 * either is recorded in `downloads`, whatever its path. Files the bot sends: a consent card's answer
 * (`consentAnswer`) names an upload slot (`/upload/{id}`) where the bytes are put (`uploads`).
 */

export type ConnectorCall = { method: string; path: string; token: string | null; body: Record<string, unknown> | null };
export type FileDownload = { host: string; path: string; token: string | null; status: number };
export type BotConnectorFake = Awaited<ReturnType<typeof startBotConnectorFake>>;

const ISSUER = 'https://api.botframework.com';

/** Teams' message ids: the time in ms, one conversation's never repeated. */
const lastIds = new Map<string, number>();
function messageId(conversationId: string): string {
  const id = Math.max(Date.now(), (lastIds.get(conversationId) ?? 0) + 1);
  lastIds.set(conversationId, id);
  return String(id);
}

export async function startBotConnectorFake(opts: { appId: string; appSecret: string }) {
  const kid = `kid-${randomBytes(4).toString('hex')}`;
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const stranger = await generateKeyPair('RS256', { extractable: true });
  // As Microsoft's keys do, one key endorses several channels of the bot: a token proves the Connector sent it, not that it came from Teams.
  const jwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', endorsements: ['msteams', 'webchat', 'directline'] };
  const issued = new Set<string>();
  const directory = new Map<string, { id: string; name: string; aadObjectId: string; email: string; userPrincipalName: string; tenantId: string }>();
  const calls: ConnectorCall[] = [];
  const activities: Array<{ conversationId: string; replyTo: string | null; id: string; body: Record<string, unknown> }> = [];
  const updates: Array<{ conversationId: string; activityId: string; body: Record<string, unknown> }> = [];
  const connectGrants = new Map<string, string>();
  const hosted = new Map<string, { bytes: Buffer; contentType: string; tempauth: string | null; chunked?: boolean }>();
  const downloads: FileDownload[] = [];
  /** Files a person allowed the bot to put in their "OneDrive" (a consent card's Allow): the upload slot Teams gave, and what was put there. */
  const uploadSlots = new Map<string, { conversationId: string; cardId: string; name: string }>();
  const uploads: Array<{ id: string; conversationId: string; cardId: string; name: string; contentType: string | null; contentRange: string | null; bytes: Buffer }> = [];
  /** The next activity sent (`failNextCard`: the next file consent card) is refused with this status, as the Connector refuses one for a conversation it does not know. */
  const state: { failNext: number | null; failNextCard: number | null } = { failNext: null, failNextCard: null };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/v1/.well-known/openidconfiguration') return send(200, { issuer: ISSUER, jwks_uri: `${base}/v1/.well-known/keys`, id_token_signing_alg_values_supported: ['RS256'] });
      if (url.pathname === '/v1/.well-known/keys') return send(200, { keys: [jwk] });
      if (url.pathname === '/botframework.com/oauth2/v2.0/token' && req.method === 'POST') {
        const form = new URLSearchParams(raw);
        if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== opts.appId || form.get('client_secret') !== opts.appSecret || form.get('scope') !== 'https://api.botframework.com/.default') {
          return send(400, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' });
        }
        const token = `bf-${randomBytes(12).toString('hex')}`;
        issued.add(token);
        return send(200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
      }
      // The Teams connect flow (authorization code at the tenant's token endpoint): an id_token naming the tenant.
      if (url.pathname === '/connect/token' && req.method === 'POST') {
        const form = new URLSearchParams(raw);
        const tid = connectGrants.get(form.get('code') ?? '');
        if (form.get('grant_type') !== 'authorization_code' || !tid) return send(400, { error: 'invalid_grant' });
        void new SignJWT({ tid, oid: randomUUID() })
          .setProtectedHeader({ alg: 'RS256', kid })
          .setIssuer(`https://login.microsoftonline.com/${tid}/v2.0`)
          .setAudience(opts.appId)
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(privateKey)
          .then((idToken) => send(200, { token_type: 'Bearer', scope: 'https://graph.microsoft.com/.default', expires_in: 3599, access_token: `opaque-${randomBytes(8).toString('hex')}`, id_token: idToken }));
        return;
      }
      const slot = /^\/upload\/([^/]+)$/.exec(url.pathname);
      if (slot && req.method === 'PUT') {
        const held = uploadSlots.get(slot[1]!);
        if (!held) return send(404, { error: { code: 'itemNotFound' } });
        uploads.push({ id: slot[1]!, ...held, contentType: req.headers['content-type'] ?? null, contentRange: (req.headers['content-range'] as string | undefined) ?? null, bytes: Buffer.concat(chunks) });
        return send(201, { id: slot[1], name: held.name, size: Buffer.concat(chunks).length });
      }
      const file = /^\/(?:files|connector\/v3\/attachments)\/([^/]+)/.exec(url.pathname);
      if (file || url.pathname.startsWith('/elsewhere/')) {
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
        const held = file ? hosted.get(file[1]!) : undefined;
        const connector = url.pathname.startsWith('/connector/');
        const allowed = held && (connector ? bearer !== null && issued.has(bearer) && /^\/connector\/v3\/attachments\/[^/]+\/views\/original$/.test(url.pathname) : held.tempauth === url.searchParams.get('tempauth'));
        const status = !held ? 404 : allowed ? 200 : 401;
        downloads.push({ host: req.headers.host ?? '', path: url.pathname, token: bearer, status });
        if (status !== 200) return send(status, { error: { code: status === 404 ? 'NotFound' : 'Unauthorized' } });
        // Chunked: no Content-Length announces the size, only the bytes that come.
        res.writeHead(200, { 'Content-Type': held!.contentType, ...(held!.chunked ? {} : { 'Content-Length': String(held!.bytes.length) }) });
        return void res.end(held!.bytes);
      }
      const m = /^\/connector\/v3\/conversations\/([^/]+)(?:\/(activities|members)(?:\/([^/]+))?)?$/.exec(url.pathname);
      if (!m) return send(404, { error: { code: 'NotFound', message: 'no such path' } });
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
      let body: Record<string, unknown> | null = null;
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
      } catch {
        return send(400, { error: { code: 'BadSyntax', message: 'not JSON' } });
      }
      calls.push({ method: req.method ?? '', path: url.pathname, token, body });
      if (!token || !issued.has(token)) return send(401, { message: 'Authorization has been denied for this request.' });
      const conversationId = decodeURIComponent(m[1]!);
      if (m[2] === 'members' && m[3]) {
        const member = directory.get(decodeURIComponent(m[3]));
        return member ? send(200, member) : send(404, { error: { code: 'MemberNotFound', message: 'not a member' } });
      }
      const isCard = (body?.attachments as Array<{ contentType?: string }> | undefined)?.[0]?.contentType === 'application/vnd.microsoft.teams.card.file.consent';
      if (m[2] === 'activities' && req.method === 'POST' && (state.failNext || (isCard && state.failNextCard))) {
        const status = (state.failNext ?? state.failNextCard)!;
        if (state.failNext) state.failNext = null;
        else state.failNextCard = null;
        return send(status, { error: { code: 'ConversationNotFound', message: 'Conversation not found.' } });
      }
      if (m[2] === 'activities' && req.method === 'POST') {
        const id = `1:${randomBytes(6).toString('hex')}`;
        activities.push({ conversationId, replyTo: m[3] ? decodeURIComponent(m[3]) : null, id, body: body ?? {} });
        return send(201, { id });
      }
      if (m[2] === 'activities' && req.method === 'PUT' && m[3]) {
        updates.push({ conversationId, activityId: decodeURIComponent(m[3]), body: body ?? {} });
        return send(200, { id: decodeURIComponent(m[3]) });
      }
      return send(405, { error: { code: 'MethodNotAllowed', message: 'not here' } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const serviceUrl = `${base}/connector/`;

  type TokenOpts = { issuer?: string; audience?: string; serviceUrl?: string; key?: 'connector' | 'stranger'; expiresIn?: number };
  async function connectorToken(o: TokenOpts = {}): Promise<string> {
    const key: CryptoKey = o.key === 'stranger' ? stranger.privateKey : privateKey;
    return new SignJWT({ serviceUrl: o.serviceUrl ?? serviceUrl })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(o.issuer ?? ISSUER)
      .setAudience(o.audience ?? opts.appId)
      .setIssuedAt()
      .setNotBefore(Math.floor(Date.now() / 1000) - 5)
      .setExpirationTime(Math.floor(Date.now() / 1000) + (o.expiresIn ?? 3600))
      .sign(key);
  }

  return {
    serviceUrl,
    /** A Connector token for an activity (what deliver sends), for building requests by hand. */
    token: connectorToken,
    tokenUrl: `${base}/botframework.com/oauth2/v2.0/token`,
    /** The token endpoint of the Teams connect flow (TEAMS_OAUTH_TOKEN_URL). */
    connectTokenUrl: `${base}/connect/token`,
    /** An admin consented for a tenant: the code the browser brings back. */
    connectGrant(tenantId: string) {
      const code = `c-${randomBytes(6).toString('hex')}`;
      connectGrants.set(code, tenantId);
      return code;
    },
    openIdUrl: `${base}/v1/.well-known/openidconfiguration`,
    calls,
    activities,
    updates,
    state,
    downloads,
    /** A file the person shares in the chat: the attachment Teams puts on the message (its bytes kept in "OneDrive"). */
    sharedFile(name: string, bytes: Buffer, contentType = 'application/octet-stream', o: { chunked?: boolean } = {}) {
      const id = randomBytes(6).toString('hex');
      const tempauth = randomBytes(8).toString('hex');
      hosted.set(id, { bytes, contentType, tempauth, chunked: o.chunked });
      return {
        contentType: 'application/vnd.microsoft.teams.file.download.info',
        contentUrl: `${base}/personal/ada/Documents/${encodeURIComponent(name)}`,
        name,
        content: { downloadUrl: `${base}/files/${id}/download.aspx?tempauth=${tempauth}`, uniqueId: randomUUID(), fileType: name.split('.').pop() ?? '', etag: `"{${randomUUID()}},1"` },
      };
    },
    /** An image pasted into the message: held by the Connector, fetched with the bot's token. */
    inlineImage(bytes: Buffer, contentType = 'image/png') {
      const id = `0-eus-d1-${randomBytes(8).toString('hex')}`;
      hosted.set(id, { bytes, contentType, tempauth: null });
      return { contentType: 'image/*', contentUrl: `${serviceUrl}v3/attachments/${id}/views/original` };
    },
    uploads,
    /** The bot's file consent cards sent so far (each offers one file). */
    consentCards: () => activities.filter((a) => (a.body.attachments as Array<{ contentType?: string }> | undefined)?.[0]?.contentType === 'application/vnd.microsoft.teams.card.file.consent'),
    /**
     * The person's answer to a consent card, as Teams posts it (invoke fileConsent/invoke): on Allow,
     * an upload slot in their "OneDrive" (`uploadUrl`: another place, to test where bytes may go).
     */
    consentAnswer(member: { id: string; name: string; aadObjectId: string; tenantId: string }, card: { id: string; conversationId: string; body: Record<string, unknown> }, action: 'accept' | 'decline', o: { uploadUrl?: string } = {}) {
      const attachment = (card.body.attachments as Array<{ name: string; content: { acceptContext: unknown; declineContext: unknown } }>)[0]!;
      const id = randomBytes(6).toString('hex');
      uploadSlots.set(id, { conversationId: card.conversationId, cardId: card.id, name: attachment.name });
      const uploadInfo = { contentUrl: `${base}/personal/ada/Documents/${encodeURIComponent(attachment.name)}`, name: attachment.name, uploadUrl: o.uploadUrl ?? `${base}/upload/${id}`, uniqueId: randomUUID(), fileType: attachment.name.split('.').pop() ?? '' };
      return this.activity(member, card.conversationId, {
        type: 'invoke',
        name: 'fileConsent/invoke',
        replyToId: card.id,
        value: { type: 'fileUpload', action, context: action === 'accept' ? attachment.content.acceptContext : attachment.content.declineContext, ...(action === 'accept' ? { uploadInfo } : {}) },
      });
    },
    /** A person in a tenant's directory, as the Connector's members API returns them. */
    addMember(member: { aadObjectId: string; name: string; email: string; tenantId: string }) {
      const id = `29:${randomBytes(8).toString('base64url')}`;
      directory.set(id, { id, name: member.name, aadObjectId: member.aadObjectId, email: member.email, userPrincipalName: member.email, tenantId: member.tenantId });
      return { id, ...member };
    },
    /** A 1:1 activity from a member to the bot, posted to the bot's endpoint with the Connector's token. */
    async deliver(endpoint: string, activity: Record<string, unknown>, tokenOpts: TokenOpts = {}, headers: Record<string, string> = {}) {
      const token = await connectorToken(tokenOpts);
      const res = await fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers }, body: JSON.stringify(activity) });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // not JSON
      }
      return { status: res.status, body };
    },
    activity(member: { id: string; name: string; aadObjectId: string; tenantId: string }, conversationId: string, fields: Record<string, unknown>) {
      return {
        type: 'message',
        // As Teams numbers a message: its arrival time in ms, unique within its conversation only (two
        // conversations may share one, which is what Steward must not take for a redelivery).
        id: messageId(conversationId),
        timestamp: new Date().toISOString(),
        serviceUrl,
        channelId: 'msteams',
        from: { id: member.id, name: member.name, aadObjectId: member.aadObjectId },
        recipient: { id: `28:${opts.appId}`, name: 'Steward' },
        conversation: { id: conversationId, conversationType: 'personal', tenantId: member.tenantId },
        channelData: { tenant: { id: member.tenantId } },
        locale: 'en-US',
        ...fields,
      };
    },
    newConversationId: () => `a:${randomUUID()}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
