import { describe, expect, it } from 'vitest';
import { call, newAccount } from '../helpers/client';
import { emailCall, useCartHarness } from './execution-harness';

/*
 * A dispatch's declared validity (spec 2, Dispatch: validUntil, evergreen) holds at execution:
 * approved after its validUntil, it fails with the reason and nothing is sent; approved while
 * still valid, or evergreen, it goes out.
 */

const h = useCartHarness();
const { app, person, cells, stagingRun, cartOfRun, cartReaches, readCart, approve, dispatchRow, mails } = h;

async function waiting(subject: string) {
  const p = await person(await newAccount(app()));
  await cells(p, { email_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
  const { runId } = await stagingRun(p, [emailCall({ subject })]);
  const cart = await cartReaches((await cartOfRun(runId)).id, ['pending_approval']);
  return { p, cart };
}

const edit = (p: { key: string }, cartId: string, body: Record<string, unknown>) => call(app(), `/portal/carts/${cartId}/dispatches/0/edit`, { method: 'PATCH', key: p.key, body });

describe('validUntil and evergreen at execution', () => {
  it('approved after its validUntil: the dispatch fails as expired and nothing is sent', async () => {
    const { p, cart } = await waiting('Lunch at noon today');
    const until = new Date(Date.now() + 1_500).toISOString();
    const edited = await edit(p, cart.id, { validUntil: until });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.cart.dispatches[0]).toMatchObject({ validUntil: until, evergreen: false });
    await new Promise((r) => setTimeout(r, 1_700));
    const ok = await approve(p, cart.id, { contentHash: edited.body.cart.contentHash });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const done = await cartReaches(cart.id, ['executed', 'failed', 'partially_executed']);
    expect(done.status).toBe('failed');
    const row = await dispatchRow(cart.id);
    expect(row).toMatchObject({ deliveryState: 'failed' });
    expect(row!.failureReason).toBe(`expired: it was valid until ${until}, and was not sent after that`);
    await h.settle(300);
    expect(mails().filter((m) => m.parsed.subject === 'Lunch at noon today')).toEqual([]);
  });

  it('still valid, or evergreen: it goes out', async () => {
    for (const [subject, body] of [
      ['Valid all week', { validUntil: new Date(Date.now() + 7 * 86_400_000).toISOString() }],
      ['Whenever suits', { evergreen: true }],
    ] as const) {
      const { p, cart } = await waiting(subject);
      const edited = await edit(p, cart.id, body);
      expect(edited.status, JSON.stringify(edited.body)).toBe(200);
      const { contentHash } = await readCart(p, cart.id);
      expect((await approve(p, cart.id, { contentHash })).status).toBe(200);
      expect((await cartReaches(cart.id, ['executed', 'failed'])).status).toBe('executed');
      await h.until(async () => mails().find((m) => m.parsed.subject === subject) ?? null, 10_000);
    }
  });
});
