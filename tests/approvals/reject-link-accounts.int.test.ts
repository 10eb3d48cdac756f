import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { carts } from '@/db/schema';
import { notifyPendingApproval } from '@/server/approvals/notify';
import { rejectLinkSite } from '@/server/approvals/reject-link';
import { setHostedDomain } from '@/server/hosted/accounts';
import { publicOrigin } from '@/server/http/public-origin';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { useCartWorld } from './cart-world';
import { renderHtml } from '../helpers/render-page';

/*
 * The Reject link with several accounts and no hosted domain: the public origin's host selects no
 * account there (every hosted page on it is 404), so the reject page and its button find the
 * account from the link's token. The page's own modules run here (app/approvals/reject: the
 * caller, the Server Action, the page) with the request headers Next.js would give them.
 */

let requestHeaders = new Headers();
vi.mock('next/headers', () => ({ headers: async () => requestHeaders }));

const { app, db, setup, pendingCart, statusOf } = useCartWorld();

const mail: CapturedMail[] = [];
let closeMail: () => Promise<void>;
beforeAll(async () => {
  const capture = await startMailCapture((m) => mail.push(m));
  closeMail = capture.close;
  vi.stubEnv('SMTP_URL', capture.url);
  // The page's modules read the process-wide database, as in the Next.js process.
  vi.stubEnv('DATABASE_URL', app().database.pool.options.connectionString as string);
  // Rejecting wakes the task; this file runs no executor: the wake is checked in the database.
  await import('@/app/approvals/reject/actions');
  const [{ registerCartSignals }, { registerRunDispatcher }] = await Promise.all([import('@/server/approvals/signals'), import('@/server/tasks/runs')]);
  registerCartSignals(null);
  registerRunDispatcher(null);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await closeMail?.();
});

/** A cart pending approval in a fresh account, mailed: its reject link and the email's text. */
async function mailedCart(hostedDomain?: string) {
  const { acct, a } = await setup();
  if (hostedDomain) await setHostedDomain(db(), acct.accountId, hostedDomain);
  const { cartId } = await pendingCart(a);
  expect(await notifyPendingApproval(db(), cartId)).toEqual({ sent: true, status: 'sent' });
  await expect.poll(() => mail.filter((m) => m.to.includes(a.email)).length).toBe(1);
  const text = mail.find((m) => m.to.includes(a.email))!.text.replace(/\r\n/g, '\n');
  const link = /(https?:\/\/[^\s/]+)\/approvals\/reject\?token=([A-Za-z0-9_%-]+)/.exec(text)!;
  return { acct, cartId, text, origin: link[1], token: decodeURIComponent(link[2]) };
}

/** What the browser sends with a page request or a Server Action on `host`. */
const asBrowserOn = (host: string, origin?: string) => {
  requestHeaders = new Headers({ host, ...(origin ? { origin } : {}) });
};

describe('reject links with several accounts and no hosted domain', () => {
  it('point at the public origin, whose page finds the account from the token; the button rejects that cart only, once', async () => {
    const pub = publicOrigin();
    // Several accounts before the first email: with one, the public origin's host selects it.
    await setup();
    const first = await mailedCart();
    const second = await mailedCart();
    expect(first.origin).toBe(pub.origin);
    expect(second.origin).toBe(pub.origin);
    // /approvals would be 404 on the shared public origin: the email does not send the person there.
    expect(first.text).not.toContain(`${pub.origin}/approvals\n`);
    expect(first.text).toContain('in the app you use with your assistant');

    const site = await rejectLinkSite(db(), new Headers({ host: pub.host }), first.token);
    expect(site).toMatchObject({ account: { id: first.acct.accountId }, origin: pub.origin, selectedByHost: false });
    expect((await rejectLinkSite(db(), new Headers({ host: pub.host }), second.token))?.account.id).toBe(second.acct.accountId);

    // The page: what would be rejected, for the token's account.
    const { default: RejectPage } = await import('@/app/approvals/reject/page');
    asBrowserOn(pub.host);
    const html = await renderHtml(await RejectPage({ searchParams: Promise.resolve({ token: first.token }) }));
    expect(html).toContain('What would be rejected');
    expect(html).toContain('bob@example.org');
    expect(html).not.toContain('href="/approvals"');

    // The button: the page's Server Action, from the page's own origin.
    const { rejectWithLink } = await import('@/app/approvals/reject/actions');
    asBrowserOn(pub.host, 'https://evil.test');
    expect(await rejectWithLink(first.token)).toEqual({ ok: false, message: 'Cross-site request refused' });
    expect(await statusOf(first.cartId)).toBe('pending_approval');
    asBrowserOn(pub.host, pub.origin);
    expect(await rejectWithLink(first.token)).toEqual({ ok: true });
    expect(await statusOf(first.cartId)).toBe('rejected');
    expect(await statusOf(second.cartId)).toBe('pending_approval');
    const again = await rejectWithLink(first.token);
    expect(again).toMatchObject({ ok: false });
    expect(!again.ok && again.message).toContain('already used');
    expect(await rejectWithLink('rj_never-issued')).toMatchObject({ ok: false, message: expect.stringContaining('not valid') });

    // The second account's link still works for its own cart.
    expect(await rejectWithLink(second.token)).toEqual({ ok: true });
    expect(await statusOf(second.cartId)).toBe('rejected');
    const [row] = await db().select({ status: carts.status }).from(carts).where(eq(carts.id, second.cartId));
    expect(row.status).toBe('rejected');
  });

  it('an account with a hosted domain keeps its links there: its token opens nothing on the public origin', async () => {
    const pub = publicOrigin();
    const host = `reject-${Date.now().toString(36)}.steward.test`;
    const hosted = await mailedCart(host);
    expect(hosted.origin).toBe(`https://${host}`);
    expect(hosted.text).toContain(`https://${host}/approvals\n`);
    expect(await rejectLinkSite(db(), new Headers({ host: pub.host }), hosted.token)).toBeNull();
    expect(await rejectLinkSite(db(), new Headers({ host }), hosted.token)).toMatchObject({ account: { id: hosted.acct.accountId }, selectedByHost: true });

    const { default: RejectPage } = await import('@/app/approvals/reject/page');
    asBrowserOn(pub.host);
    expect(await renderHtml(await RejectPage({ searchParams: Promise.resolve({ token: hosted.token }) }))).toContain('not valid');
    // A host that is neither the public origin nor a hosted domain serves no page, as for every hosted page.
    asBrowserOn('elsewhere.example');
    await expect(RejectPage({ searchParams: Promise.resolve({ token: hosted.token }) })).rejects.toThrow();
    expect(await statusOf(hosted.cartId)).toBe('pending_approval');
  });
});
