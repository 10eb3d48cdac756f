import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, handoffs, handoffSessionLinks, users, type HandoffRow } from '@/db/schema';
import { siteOrigin } from '@/server/hosted/origin';
import { portalToken } from '@/server/sign-in/portal-actor';
import { consumeSessionLink, hashToken } from '../handoffs/session-links';

/*
 * Who may open a live view: whoever presents a session link's token, once. The link acts only
 * for the user it was issued to: a browser signed in to the hosted app as someone else is
 * refused (and the link is left unused for its owner), as is a user no longer active, or a
 * handoff that closed meanwhile.
 */

export const LIVE_PATH = /^\/api\/workspace\/live\/([A-Za-z0-9_-]{1,100})$/;

export type LiveAdmission = { ok: true; handoff: HandoffRow } | { ok: false; status: 401 | 403 | 404 | 410; reason: string };

export async function admit(db: Db, handoffId: string, token: string, headers: Pick<Headers, 'get'>, now = new Date()): Promise<LiveAdmission> {
  if (!token || token.length > 200) return { ok: false, status: 401, reason: 'a session token is required' };
  const [link] = await db
    .select({ userId: handoffSessionLinks.userId })
    .from(handoffSessionLinks)
    .where(and(eq(handoffSessionLinks.tokenHash, hashToken(token)), eq(handoffSessionLinks.handoffId, handoffId), isNull(handoffSessionLinks.consumedAt)));
  if (!link) return { ok: false, status: 401, reason: 'the session link is unknown or was already used' };
  const [row] = await db
    .select({ handoff: handoffs, account: accounts, userStatus: users.status })
    .from(handoffs)
    .innerJoin(accounts, eq(accounts.id, handoffs.accountId))
    .innerJoin(users, eq(users.id, handoffs.userId))
    .where(and(eq(handoffs.id, handoffId), eq(handoffs.userId, link.userId)));
  if (!row) return { ok: false, status: 404, reason: 'handoff not found' };
  if (row.userStatus !== 'active') return { ok: false, status: 403, reason: 'the user is not active' };
  const signedIn = await portalToken(db, row.account, headers, siteOrigin(row.account.hostedDomain).secure);
  if (signedIn && signedIn.sub !== link.userId) return { ok: false, status: 403, reason: 'this link was issued to another user' };
  if (row.handoff.closedAt || row.handoff.expiresAt <= now) return { ok: false, status: 410, reason: 'the handoff is no longer open' };
  const consumed = await consumeSessionLink(db, handoffId, token, now);
  if (!consumed) return { ok: false, status: 401, reason: 'the session link is unknown or was already used' };
  return { ok: true, handoff: row.handoff };
}
