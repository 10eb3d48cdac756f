import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { carts, users } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { decideCart } from '@/server/approvals/decide';
import { editDispatch } from '@/server/approvals/edits';
import { approveCart, cancelCart } from '@/server/approvals/service';
import { AppError } from '@/server/http/errors';
import { newAccount } from '../helpers/client';
import { emailCall, useCartHarness } from './execution-harness';

/*
 * The decision credential (a signed button press, a texted code) decides one cart version and
 * nothing else: another version or another cart is 403 and changes nothing; it never edits or
 * cancels; for its own version it approves, through the same rules as the app's approve. A
 * channel credential (a proven sender) never decides at all.
 */

const h = useCartHarness();
const { app, person, cells, stagingRun, cartOfRun, cartReaches } = h;

async function waiting(p: Awaited<ReturnType<typeof person>>, subject: string) {
  const { runId } = await stagingRun(p, [emailCall({ subject })]);
  return cartReaches((await cartOfRun(runId)).id, ['pending_approval']);
}

async function ownerActor(userId: string, credential: Actor['credential']): Promise<Actor> {
  const [user] = await h.db().select().from(users).where(eq(users.id, userId));
  return { accountId: user!.accountId, credential, level: 'user', organizationId: null, user: user!, actingVia: null, scopes: [], account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null } };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => (e instanceof AppError ? e.status : e),
  );

const statusOf = async (cartId: string) => (await h.db().select({ status: carts.status }).from(carts).where(eq(carts.id, cartId)))[0]!.status;

describe('the decision credential', () => {
  it('decides only its own cart version; never edits or cancels; a channel credential never decides', async () => {
    const p = await person(await newAccount(app()));
    await cells(p, { email_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
    const a = await waiting(p, 'First');
    const b = await waiting(p, 'Second');
    const forA = await ownerActor(p.id, { kind: 'decision', via: 'slack_button', cartId: a.id, contentHash: a.contentHash });

    // Another cart, another version of its own cart: 403, nothing moves.
    expect(await refusal(h.db().transaction((tx) => decideCart(tx, forA, b.id, { decision: 'approve', contentHash: b.contentHash })))).toBe(403);
    expect(await refusal(h.db().transaction((tx) => decideCart(tx, forA, a.id, { decision: 'approve', contentHash: 'another-version' })))).toBe(403);
    // Never an edit or a cancel.
    expect(await refusal(editDispatch(h.db(), forA, a.id, 0, { body: 'changed' }))).toBe(403);
    expect(await refusal(cancelCart(h.db(), forA, a.id, {}))).toBe(403);
    expect([await statusOf(a.id), await statusOf(b.id)]).toEqual(['pending_approval', 'pending_approval']);

    // A proven sender is not a decision.
    const sender = await ownerActor(p.id, { kind: 'channel', channel: 'email' });
    expect(await refusal(approveCart(h.db(), sender, a.id, { contentHash: a.contentHash }))).toBe(403);
    expect(await statusOf(a.id)).toBe('pending_approval');

    // Its own version: approved, like the app's approve.
    expect(await approveCart(h.db(), forA, a.id, { contentHash: a.contentHash })).toMatchObject({ ok: true, status: 'approved' });
    expect((await cartReaches(a.id, ['executed', 'failed'])).status).toBe('executed');
    expect(await statusOf(b.id)).toBe('pending_approval');
  });
});
