import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import MailComposer from 'nodemailer/lib/mail-composer';

/*
 * The OAuth 2.0 half the Gmail and Graph stand-ins share: an authorization endpoint that consents
 * as a chosen mailbox and redirects back with a code (or access_denied), and a token endpoint that
 * checks the client, the redirect URI and the PKCE verifier (RFC 7636, S256), refreshes (rotating
 * the refresh token when the provider does) and answers `invalid_grant` once a grant is revoked.
 */

const token = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;
const s256 = (v: string) => createHash('sha256').update(v, 'ascii').digest('base64url');

type Grant = { user: string; scope: string; revoked: boolean };

export type PkceCheck = { challenge: string; verifier: string | null; ok: boolean };

export class FakeOAuth {
  /** Who consents at the next authorization (the stand-in's first mailbox unless set). */
  consentAs: string | null = null;
  denyNext = false;
  readonly pkceChecks: PkceCheck[] = [];
  /** Every token handed out (access and refresh), for the database dump check. */
  readonly issued: string[] = [];
  readonly authorizeRequests: URL[] = [];
  private readonly grants = new Map<string, Grant>();
  private readonly codes = new Map<string, { grant: string; challenge: string | null; method: string | null; redirectUri: string; used: boolean }>();
  private readonly access = new Map<string, { grant: string; valid: boolean }>();
  private readonly refresh = new Map<string, { grant: string; valid: boolean }>();

  constructor(
    readonly clientId: string,
    readonly clientSecret: string,
    private readonly opts: { rotateRefresh: boolean; defaultUser: () => string | null; expiresIn: number },
  ) {}

  /** GET authorize: consent, then back to redirect_uri with code and state. */
  authorize(url: URL): { status: number; location?: string; body?: string } {
    this.authorizeRequests.push(url);
    const q = url.searchParams;
    const redirectUri = q.get('redirect_uri');
    if (q.get('client_id') !== this.clientId || !redirectUri) return { status: 400, body: 'invalid client_id or redirect_uri' };
    const back = new URL(redirectUri);
    back.searchParams.set('state', q.get('state') ?? '');
    if (this.denyNext) {
      this.denyNext = false;
      back.searchParams.set('error', 'access_denied');
      return { status: 302, location: back.toString() };
    }
    const user = this.consentAs ?? this.opts.defaultUser();
    if (!user) return { status: 400, body: 'no mailbox to consent as' };
    const grant = token('grant-');
    this.grants.set(grant, { user, scope: q.get('scope') ?? '', revoked: false });
    const code = token('code-');
    this.codes.set(code, { grant, challenge: q.get('code_challenge'), method: q.get('code_challenge_method'), redirectUri, used: false });
    back.searchParams.set('code', code);
    return { status: 302, location: back.toString() };
  }

  private issue(grant: string, withRefresh: boolean) {
    const accessToken = token('at-');
    this.access.set(accessToken, { grant, valid: true });
    const out: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: this.opts.expiresIn, scope: this.grants.get(grant)!.scope };
    this.issued.push(accessToken);
    if (withRefresh) {
      const refreshToken = token('rt-');
      this.refresh.set(refreshToken, { grant, valid: true });
      this.issued.push(refreshToken);
      out.refresh_token = refreshToken;
    }
    return out;
  }

  /** POST token (form-encoded). */
  token(form: URLSearchParams): { status: number; body: Record<string, unknown> } {
    const refuse = (error: string, description: string) => ({ status: 400, body: { error, error_description: description } });
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) return { status: 401, body: { error: 'invalid_client', error_description: 'bad client' } };
    if (form.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      if (!code || code.used) return refuse('invalid_grant', 'unknown or used code');
      code.used = true;
      if (code.redirectUri !== form.get('redirect_uri')) return refuse('invalid_grant', 'redirect_uri mismatch');
      const verifier = form.get('code_verifier');
      const ok = code.method === 'S256' && code.challenge !== null && verifier !== null && s256(verifier) === code.challenge;
      this.pkceChecks.push({ challenge: code.challenge ?? '', verifier, ok });
      if (!ok) return refuse('invalid_grant', 'PKCE verification failed');
      return { status: 200, body: this.issue(code.grant, true) };
    }
    if (form.get('grant_type') === 'refresh_token') {
      const r = this.refresh.get(form.get('refresh_token') ?? '');
      if (!r || !r.valid || this.grants.get(r.grant)?.revoked) return refuse('invalid_grant', 'the refresh token is revoked, expired or unknown');
      if (this.opts.rotateRefresh) r.valid = false;
      return { status: 200, body: this.issue(r.grant, this.opts.rotateRefresh) };
    }
    return refuse('unsupported_grant_type', String(form.get('grant_type')));
  }

  /** The mailbox an Authorization header's access token opens, or null (401). */
  userOf(header: string | undefined): string | null {
    const t = /^Bearer (.+)$/.exec(header ?? '')?.[1];
    const a = t ? this.access.get(t) : undefined;
    const grant = a && a.valid ? this.grants.get(a.grant) : undefined;
    return grant && !grant.revoked ? grant.user : null;
  }

  /** The scopes (space-separated, as consented) of the grant an Authorization header's access token belongs to, or null. */
  scopeOf(header: string | undefined): string | null {
    const t = /^Bearer (.+)$/.exec(header ?? '')?.[1];
    const a = t ? this.access.get(t) : undefined;
    return a && a.valid ? (this.grants.get(a.grant)?.scope ?? null) : null;
  }

  /** The user withdraws access (or the grant is revoked by token): every token of their grants stops working. */
  revokeUser(user: string) {
    for (const g of this.grants.values()) if (g.user === user) g.revoked = true;
  }

  revokeToken(t: string): boolean {
    const grant = this.access.get(t)?.grant ?? this.refresh.get(t)?.grant;
    if (!grant) return false;
    this.grants.get(grant)!.revoked = true;
    return true;
  }

  /** Access tokens expire early (the refresh tokens keep working). */
  expireAccessTokens() {
    for (const a of this.access.values()) a.valid = false;
  }
}

export async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

export type IncomingMail = {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  /** The receiving provider's verdict, written as its topmost Authentication-Results header. */
  auth?: 'pass' | 'fail' | 'none';
};

/** A received message as the provider stores it: its own Authentication-Results on top, then the message. */
export async function receivedRaw(mail: IncomingMail, authResults: (domain: string, result: 'pass' | 'fail' | 'none') => string): Promise<{ raw: Buffer; messageId: string }> {
  const domain = mail.from.replace(/^.*@/, '').replace(/>.*$/, '');
  const messageId = mail.messageId ?? `<${randomBytes(10).toString('hex')}@${domain}>`;
  const body = await new MailComposer({
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references?.length ? { references: mail.references } : {}),
  })
    .compile()
    .build();
  return { raw: Buffer.concat([Buffer.from(`Authentication-Results: ${authResults(domain, mail.auth ?? 'pass')}\r\n`), body]), messageId };
}
