import { eq } from 'drizzle-orm';
import NextAuth from 'next-auth';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accounts, identifiers, users } from '@/db/schema';
import { setHostedDomain } from '@/server/hosted/accounts';
import { AppError } from '@/server/http/errors';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { authOptions } from '@/server/sign-in/auth-options';
import { consumeLinkRequest } from '@/server/sign-in/link-limit';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { call, newAccount, newUser, uniqueEmail } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

const mail: CapturedMail[] = [];
let capture: Awaited<ReturnType<typeof startMailCapture>>;
beforeAll(async () => {
  capture = await startMailCapture((m) => mail.push(m));
  vi.stubEnv('SMTP_URL', capture.url);
  // As next-auth-handler.ts sets it: each hosted app takes its origin from its own domain.
  vi.stubEnv('AUTH_TRUST_HOST', 'true');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await capture?.close();
});

let n = 0;
async function hostedAccount() {
  const acct = await newAccount(app());
  const host = `links${++n}-${Date.now().toString(36)}.steward.test`;
  await setHostedDomain(app().database.db, acct.accountId, host);
  return { acct, host };
}

const mailsTo = (address: string) => mail.filter((m) => m.to.includes(address));
const linkIn = (m: CapturedMail) => /https:\/\/\S+\/api\/auth\/callback\/email\?\S+/.exec(m.text)?.[0] ?? null;

type Sent = { status: number; location: string | null; body: unknown };

/**
 * A browser on the hosted app speaking to next-auth as configured for the account (the options
 * /api/auth/* runs with, through next-auth's own request handler), keeping its cookies between requests.
 */
async function browser(accountId: string, host: string) {
  const db = app().database.db;
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  const options = await authOptions(db, account, { origin: `https://${host}`, secure: true });
  const jar = new Map<string, string>();
  const send = async (path: string[], opts: { method: 'GET' | 'POST'; query?: Record<string, string>; body?: Record<string, string> }): Promise<Sent> => {
    const headers: Record<string, string | string[]> = {};
    const out: Sent = { status: 200, location: null, body: null };
    const res = {
      status: (code: number) => ((out.status = code), res),
      setHeader: (k: string, v: string | string[]) => ((headers[k.toLowerCase()] = v), res),
      getHeader: (k: string) => headers[k.toLowerCase()],
      end: () => res,
      json: (b: unknown) => ((out.body = b), res),
      send: (b: unknown) => ((out.body = b), res),
    };
    const req = { method: opts.method, query: { nextauth: path, ...opts.query }, body: opts.body, headers: { host }, cookies: Object.fromEntries(jar) };
    await NextAuth(req as never, res as never, options);
    for (const c of [headers['set-cookie'] ?? []].flat()) {
      const [pair, ...attrs] = c.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = decodeURIComponent(pair.slice(pair.indexOf('=') + 1));
      if (!value || attrs.some((a) => /^\s*max-age=0$/i.test(a))) jar.delete(name);
      else jar.set(name, value);
    }
    out.location = (headers.location as string | undefined) ?? null;
    return out;
  };
  const sessionCookie = () => [...jar.entries()].find(([k]) => k.endsWith('next-auth.session-token')) ?? null;
  return {
    sessionCookie,
    /** POST /api/auth/signin/email with a fresh CSRF token, as the sign-in form does. */
    requestLink: async (email: string) => {
      const csrf = await send(['csrf'], { method: 'GET' });
      return send(['signin', 'email'], { method: 'POST', body: { email, csrfToken: (csrf.body as { csrfToken: string }).csrfToken } });
    },
    /** Follows the link from the mail: GET /api/auth/callback/email?token&email. */
    follow: (link: string) => send(['callback', 'email'], { method: 'GET', query: Object.fromEntries(new URL(link).searchParams) }),
    session: () => send(['session'], { method: 'GET' }),
    me: async () => {
      const cookie = sessionCookie();
      const headers = new Headers({ host, ...(cookie ? { cookie: `${cookie[0]}=${cookie[1]}` } : {}) });
      return appRouter.createCaller(await portalContext(db, headers)).auth.me();
    },
  };
}

describe('email sign-in links identify people by verified email only', () => {
  it('a link for an address someone holds unverified never signs in as them: the mail says no account, with no link', async () => {
    const { acct, host } = await hostedAccount();
    const squatter = await newUser(app(), acct);
    const victim = `ceo-${Date.now().toString(36)}@bigcorp.example`;
    // The state a squatter could reach before make-primary required a verified identifier.
    const db = app().database.db;
    await db.insert(identifiers).values({ accountId: acct.accountId, userId: squatter.id, type: 'email', value: victim, verified: false });
    await db.update(users).set({ email: victim }).where(eq(users.id, squatter.id));

    const b = await browser(acct.accountId, host);
    const res = await b.requestLink(victim);
    expect(res.location).toMatch(/\/verify-request/);
    const [sent] = mailsTo(victim);
    expect(sent.subject).toBe('Sign-in attempt');
    expect(linkIn(sent)).toBeNull();
    expect(b.sessionCookie()).toBeNull();
  });

  it('the holder of a verified email signs in with its link, once', async () => {
    const { acct, host } = await hostedAccount();
    const person = await newUser(app(), acct);
    const b = await browser(acct.accountId, host);
    await b.requestLink(person.email.toUpperCase());
    const link = linkIn(mailsTo(person.email)[0]);
    expect(link).toBeTruthy();
    await b.follow(link!);
    expect(await b.me()).toMatchObject({ user: { id: person.id } });
    const again = await browser(acct.accountId, host);
    await again.follow(link!);
    expect(again.sessionCookie()).toBeNull();
  });

  it('an address with junk after it (alice@x,1) gets no mail at all', async () => {
    const { acct, host } = await hostedAccount();
    const person = await newUser(app(), acct);
    const b = await browser(acct.accountId, host);
    const res = await b.requestLink(`${person.email},1`);
    expect(res.location).toMatch(/error=EmailSignin/);
    expect(mailsTo(person.email)).toEqual([]);
  });
});

describe('sign-in link rate limit keys the address actually mailed', () => {
  const attempt = (accountId: string, email: string, ip: string) =>
    consumeLinkRequest(app().database.pool, accountId, email, ip).then(
      (address) => `ok:${address}`,
      (e: AppError) => `${e.status}:${e.code}:${e.message}`,
    );

  it('refuses anything but a single plain address with 400 naming email, and counts case, spaces and +tags as the same mailbox', async () => {
    const { acct } = await hostedAccount();
    const alice = uniqueEmail('alice');
    const [local, domain] = alice.split('@');
    expect(await attempt(acct.accountId, `${alice},1`, '10.0.0.1')).toMatch(/^400:bad_request:email: /);
    expect(await attempt(acct.accountId, `${alice}, bob@example.com`, '10.0.0.1')).toMatch(/^400:bad_request:email: /);
    expect(await attempt(acct.accountId, `"${local}"@${domain}`, '10.0.0.1')).toMatch(/^400:/);
    const variants = [alice, ` ${alice.toUpperCase()} `, `${local}+1@${domain}`, `${local}+x@${domain}`, alice];
    for (const [i, v] of variants.entries()) expect(await attempt(acct.accountId, v, `10.0.1.${i}`)).toMatch(/^ok:/);
    expect(await attempt(acct.accountId, `${local}+again@${domain}`, '10.0.2.1')).toMatch(/^429:rate_limited/);
    expect(await attempt(acct.accountId, alice, '10.0.2.2')).toMatch(/^429:rate_limited/);
  });
});

describe('auth.start is rate limited', () => {
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e) => (e instanceof TRPCError && e.cause instanceof AppError ? `${e.code}:${e.cause.code}` : e instanceof TRPCError ? e.code : String(e)),
    );
  const starter = async (host: string, clientIp: string) => appRouter.createCaller({ ...(await portalContext(app().database.db, new Headers({ host }))), clientIp }).auth;

  it('allows 10 starts per address (any spelling of it) every 15 minutes, then 429 rate_limited', async () => {
    const { host } = await hostedAccount();
    const email = uniqueEmail('start');
    for (let i = 0; i < 10; i++) expect(await codeOf((await starter(host, `10.1.0.${i}`)).start({ email: i % 2 ? email.toUpperCase() : email }))).toBe('ok');
    expect(await codeOf((await starter(host, '10.1.1.1')).start({ email }))).toBe('TOO_MANY_REQUESTS:rate_limited');
    expect(await codeOf((await starter(host, '10.1.1.1')).start({ email: uniqueEmail('other') }))).toBe('ok');
  });

  it('allows 60 starts per client IP every 15 minutes, then 429 rate_limited for any address', async () => {
    const { host } = await hostedAccount();
    const from = await starter(host, '10.2.0.1');
    for (let i = 0; i < 60; i++) expect(await codeOf(from.start({ email: uniqueEmail('ip') }))).toBe('ok');
    expect(await codeOf(from.start({ email: uniqueEmail('ip') }))).toBe('TOO_MANY_REQUESTS:rate_limited');
    expect(await codeOf((await starter(host, '10.2.0.2')).start({ email: uniqueEmail('ip') }))).toBe('ok');
  });
});

describe('email-link sessions are revocable', () => {
  it('next-auth’s own session read ends a session whose version moved on (blocked, then reactivated) and clears the cookie', async () => {
    const { acct, host } = await hostedAccount();
    const person = await newUser(app(), acct);
    const b = await browser(acct.accountId, host);
    await b.requestLink(person.email);
    await b.follow(linkIn(mailsTo(person.email)[0])!);
    expect((await b.session()).body).toMatchObject({ user: { id: person.id } });

    expect((await call(app(), `/users/${person.id}`, { key: acct.key, method: 'PUT', body: { status: 'suspended' } })).status).toBe(200);
    expect((await call(app(), `/users/${person.id}`, { key: acct.key, method: 'PUT', body: { status: 'active' } })).status).toBe(200);
    expect(await b.me()).toBeNull();
    expect((await b.session()).body).toEqual({});
    expect(b.sessionCookie()).toBeNull();

    // Signing in again works.
    await b.requestLink(person.email);
    await b.follow(linkIn(mailsTo(person.email).at(-1)!)!);
    expect(await b.me()).toMatchObject({ user: { id: person.id } });
  });
});
