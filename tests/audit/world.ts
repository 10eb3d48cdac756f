import { eq } from 'drizzle-orm';
import { cartRejectLinks, carts, tasks } from '@/db/schema';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import { newRejectToken } from '@/server/approvals/reject-link';
import { stageDispatch, submitCart } from '@/server/approvals/staging';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import type { TestServer } from '../helpers/server';

/** An account with an organization whose admin is `admin` (their user key `adminKey`), and a member outside it. */
export async function auditWorld(s: TestServer) {
  const acct: AccountFixture = await newAccount(s, 'Audited');
  const admin = await newUser(s, acct);
  const org = (await call(s, '/organizations', { key: acct.key, body: { name: 'Audited org' } })).body.organization as { id: string };
  await call(s, `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const adminKey = await userKey(s, acct, admin.id);
  const outsider = await newUser(s, acct);
  const outsiderKey = await userKey(s, acct, outsider.id);
  return { acct, admin, adminKey, org, outsider, outsiderKey };
}

/** A cart of `key`'s user waiting for approval, staged and submitted as a run would (see tests/security/fixtures.ts). */
export async function pendingCart(s: TestServer, userId: string, key: string) {
  const a = await call(s, `/users/${userId}/assistants`, { key, body: { name: 'Cart helper' } });
  const t = await call(s, '/tasks', { key, body: { title: `Write ${Date.now()}`, assistant: a.body.assistant.id } });
  const processed = await call(s, `/tasks/${t.body.task.id}/process`, { key, body: { message: 'Write to Bob' } });
  const runId = processed.body.process.executionId as string;
  const db = s.database.db;
  const [task] = await db.select().from(tasks).where(eq(tasks.id, t.body.task.id));
  const actor = await ownerActor(db, task, runId);
  if (!actor) throw new Error('the owner cannot act');
  const { cartId } = await db.transaction((tx) =>
    stageDispatch(tx, actor, task, runId, { type: 'email', platform: 'email', actionType: 'email_as_user', to: ['bob@example.org'], subject: 'Hello', body: 'Hi Bob' }),
  );
  await db.transaction((tx) => submitCart(tx, cartId));
  const read = await call(s, `/portal/carts/${cartId}`, { key });
  return { cartId, contentHash: read.body.cart.contentHash as string };
}

/** A reject link for a cart, as the approval email would carry it. */
export async function rejectLinkFor(s: TestServer, cartId: string): Promise<string> {
  const [cart] = await s.database.db.select().from(carts).where(eq(carts.id, cartId));
  const { token, tokenHash } = newRejectToken();
  await s.database.db.insert(cartRejectLinks).values({ accountId: cart.accountId, cartId, userId: cart.userId, tokenHash, contentHash: cart.contentHash, expiresAt: new Date(Date.now() + 3_600_000), mailedAt: new Date() });
  return token;
}
