import { and, eq } from 'drizzle-orm';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DispatchView } from '@/app/approvals/dispatch-view';
import { cartDispatches, users, type HeldBecause } from '@/db/schema';
import { notifyPendingApproval } from '@/server/approvals/notify';
import { setHostedDomain } from '@/server/hosted/accounts';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { useCartWorld } from './cart-world';

/*
 * A dispatch held because its task read content from outside (cart_dispatches.held_because, set
 * here directly: the code that sets it is the runtime's) is shown to the person as such, with its
 * sources: in the approval email under the dispatch's line, and on the approvals page beside its
 * content (the page's DispatchView rendered from what the approvals router answers: a render test,
 * not a browser one).
 */

const { db, setup, emailAsUser, pendingCart } = useCartWorld();

const mail: CapturedMail[] = [];
let closeMail: () => Promise<void>;
beforeAll(async () => {
  const capture = await startMailCapture((m) => mail.push(m));
  closeMail = capture.close;
  vi.stubEnv('SMTP_URL', capture.url);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await closeMail?.();
});

const HELD: HeldBecause = {
  kind: 'untrusted_input',
  sources: [
    { kind: 'email', ref: 'eve@evil.test' },
    { kind: 'web', ref: 'https://evil.test/offer?x=1' },
    // A reference is text from outside: its line breaks must not become lines of the email.
    { kind: 'file', ref: 'notes.txt\r\nApprove at https://evil.test/approve' },
  ],
};

async function heldCart() {
  const { acct, a } = await setup();
  const host = `held-${Date.now().toString(36)}.steward.test`;
  await setHostedDomain(db(), acct.accountId, host);
  const { cartId } = await pendingCart(a, [emailAsUser({ subject: 'Invoice' }), emailAsUser({ to: ['carol@example.org'], subject: 'Lunch' })]);
  await db()
    .update(cartDispatches)
    .set({ heldBecause: HELD })
    .where(and(eq(cartDispatches.cartId, cartId), eq(cartDispatches.index, 0)));
  return { a, cartId, host };
}

describe('a held dispatch in the approval email', () => {
  it('says under its own line that the task read content from outside, and names each source on one line', async () => {
    const { a, cartId } = await heldCart();
    expect(await notifyPendingApproval(db(), cartId)).toEqual({ sent: true, status: 'sent' });
    await expect.poll(() => mail.filter((m) => m.to.includes(a.email)).length).toBe(1);
    const text = mail.find((m) => m.to.includes(a.email))!.text.replace(/\r\n/g, '\n');
    const lines = text.split('\n');
    const first = lines.indexOf('- Email to bob@example.org: "Invoice"');
    expect(first, text).toBeGreaterThanOrEqual(0);
    const held = lines[first + 1];
    expect(held).toMatch(/^ {2}Held for your approval because the task read content from outside: /);
    expect(held).toContain('email from eve@evil.test');
    expect(held).toContain('web page https://evil.test/offer?x=1');
    expect(held).toContain('file notes.txt Approve at https://evil.test/approve');
    // The dispatch that was not held has no such line.
    const second = lines.indexOf('- Email to carol@example.org: "Lunch"');
    expect(second).toBe(first + 2);
    expect(lines[second + 1]).not.toMatch(/Held/);
    expect(lines.filter((l) => l.startsWith('Approve at'))).toEqual([]);
  });
});

describe('a held dispatch on the approvals page', () => {
  it('the router answers heldBecause and the page shows it beside the content, sources as text, not links', async () => {
    const { a, cartId, host } = await heldCart();
    const [row] = await db().select().from(users).where(eq(users.id, a.id));
    const headers = new Headers({ host, cookie: (await sessionSetCookie(db(), row, 'email', true)).split(';')[0] });
    const api = appRouter.createCaller(await portalContext(db(), headers));
    const { cart } = await api.approvals.get({ cartId });
    expect(cart.dispatches[0].heldBecause).toEqual(HELD);
    expect(cart.dispatches[1].heldBecause).toBeNull();

    const html = renderToStaticMarkup(createElement(DispatchView, { dispatch: cart.dispatches[0], headingId: 'd0' }));
    expect(html).toContain('role="note"');
    expect(html).toContain('Held for your approval');
    expect(html).toContain('the task read content from outside');
    expect(html).toMatch(/Email from <span[^>]*>eve@evil\.test<\/span>/);
    expect(html).toMatch(/Web page <span[^>]*>https:\/\/evil\.test\/offer\?x=1<\/span>/);
    expect(html).not.toContain('href="https://evil.test');
    // The held note comes before the fields of the content it is about.
    expect(html.indexOf('Held for your approval')).toBeLessThan(html.indexOf('Subject'));

    const plain = renderToStaticMarkup(createElement(DispatchView, { dispatch: cart.dispatches[1], headingId: 'd1' }));
    expect(plain).not.toContain('Held for your approval');
  });

  it('the reject page’s preview carries it too', async () => {
    const { acct, a } = await setup();
    const host = `held-r-${Date.now().toString(36)}.steward.test`;
    await setHostedDomain(db(), acct.accountId, host);
    const { cartId } = await pendingCart(a, [emailAsUser()]);
    await db().update(cartDispatches).set({ heldBecause: { kind: 'untrusted_input', sources: [{ kind: 'message', ref: '+15550100' }] } }).where(eq(cartDispatches.cartId, cartId));
    expect(await notifyPendingApproval(db(), cartId)).toEqual({ sent: true, status: 'sent' });
    await expect.poll(() => mail.filter((m) => m.to.includes(a.email)).length).toBe(1);
    const text = mail.find((m) => m.to.includes(a.email))!.text;
    expect(text).toContain('message from +15550100');
    const token = decodeURIComponent(/\/approvals\/reject\?token=([A-Za-z0-9_%-]+)/.exec(text)![1]);
    const anon = appRouter.createCaller(await portalContext(db(), new Headers({ host })));
    const preview = await anon.approvals.rejectPreview({ token });
    expect(preview.state).toBe('ready');
    if (preview.state !== 'ready') return;
    const html = renderToStaticMarkup(createElement(DispatchView, { dispatch: preview.cart.dispatches[0], headingId: 'r0' }));
    expect(html).toMatch(/Message from <span[^>]*>\+15550100<\/span>/);
  });
});
