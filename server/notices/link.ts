import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, notices, users } from '@/db/schema';
import { siteOrigin } from '@/server/hosted/origin';
import { sessionSetCookie } from '@/server/sign-in/session';
import { signInRoute } from '@/server/sign-in/sign-in-method';
import { noteFirstLogin } from '@/server/sign-in/sign-in-audit';
import { linkTokenHash } from './deliver';

/*
 * A notice's one-time link into the hosted app. Opening it (GET) only shows a page with a
 * button: mail scanners fetch links, and a fetch must not spend the link. Pressing it (POST, the
 * token in the form) spends it once: the person is signed in as the notice's user (as an email
 * sign-in link would: the notice went to their own verified address) and lands on the page it is
 * about. Where the user must sign in with SSO, no session is made: they land on the page and
 * sign in there. An unknown, used or expired token changes nothing.
 */

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string, status = 200) =>
  new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)}</title>` +
      '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:1px solid #333;background:#222;color:#fff;cursor:pointer}@media (prefers-color-scheme:dark){body{background:#111;color:#eee}button{background:#eee;color:#111}}</style>' +
      `</head><body>${body}</body></html>`,
    { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' } },
  );

const gone = () => page('Link not valid', '<h1>This link no longer works</h1><p>It was used already, has expired, or was never valid. Open the app and sign in instead.</p>', 410);

/** GET: the page with the button (nothing is spent). */
export async function noticeLinkPage(db: Db, token: string, now = new Date()) {
  const [row] = await db
    .select({ subject: notices.subject })
    .from(notices)
    .where(and(eq(notices.linkTokenHash, linkTokenHash(token)), isNull(notices.linkUsedAt), gt(notices.linkExpiresAt, now)));
  if (!row) return gone();
  return page(
    row.subject,
    `<h1>${escape(row.subject)}</h1><p>Continue to the app to see it and act on it.</p>` +
      `<form method="post" action="/api/notices/open"><input type="hidden" name="token" value="${escape(token)}"><button type="submit">Continue</button></form>`,
  );
}

/** POST: spends the link, signs the person in when email sign-in is theirs, and sends them to the page. */
export async function openNoticeLink(db: Db, token: string, now = new Date()): Promise<Response> {
  const [spent] = await db
    .update(notices)
    .set({ linkUsedAt: now })
    .where(and(eq(notices.linkTokenHash, linkTokenHash(token)), isNull(notices.linkUsedAt), gt(notices.linkExpiresAt, now)))
    .returning();
  if (!spent) return gone();
  const [row] = await db.select({ user: users, hostedDomain: accounts.hostedDomain }).from(users).innerJoin(accounts, eq(accounts.id, users.accountId)).where(eq(users.id, spent.userId));
  if (!row || row.user.status !== 'active') return gone();
  const origin = siteOrigin(row.hostedDomain);
  const location = `${origin.origin}${spent.linkPath.startsWith('/') ? spent.linkPath : '/'}`;
  const headers: Record<string, string> = { Location: location, 'Cache-Control': 'no-store' };
  const route = await signInRoute(db, row.user.accountId, row.user.email).catch(() => ({ method: 'sso' as const }));
  if (route.method === 'email') {
    headers['Set-Cookie'] = await sessionSetCookie(db, row.user, 'email', origin.origin.startsWith('https:'));
    await noteFirstLogin(db, row.user.id, now);
  }
  return new Response(null, { status: 303, headers });
}
