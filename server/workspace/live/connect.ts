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
 * handoff that closed meanwhile. A browser opens the socket only from the live-view page on the
 * handoff's own hosted origin (its account's hosted domain, else STEWARD_PUBLIC_URL): an upgrade
 * whose Origin names any other origin is refused before the link is spent, so a page elsewhere
 * cannot drive the person's browser with their cookie (cross-site WebSocket hijacking). An
 * upgrade without Origin is not a browser's (browsers always send it), and the token decides.
 */

export const LIVE_PATH = /^\/api\/workspace\/live\/([A-Za-z0-9_-]{1,100})$/;

export type LiveAdmission = { ok: true; handoff: HandoffRow } | { ok: false; status: 401 | 403 | 404 | 410; reason: string };

/** Whether an upgrade's Origin header allows it for a view served on `site`: absent, or exactly that origin. */
export function originAllowed(origin: string | null, site: string): boolean {
  return origin === null || origin === site;
}

/** Whose browser a live view of this handoff shows (to route the upgrade to it), or null for no such handoff. */
export async function handoffOwner(db: Db, handoffId: string): Promise<{ accountId: string; userId: string } | null> {
  const [row] = await db.select({ accountId: handoffs.accountId, userId: handoffs.userId }).from(handoffs).where(eq(handoffs.id, handoffId));
  return row ?? null;
}

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
  const site = siteOrigin(row.account.hostedDomain);
  if (!originAllowed(headers.get('origin'), site.origin)) return { ok: false, status: 403, reason: 'the live view opens only from its own page' };
  if (row.userStatus !== 'active') return { ok: false, status: 403, reason: 'the user is not active' };
  const signedIn = await portalToken(db, row.account, headers, site.secure);
  if (signedIn && signedIn.sub !== link.userId) return { ok: false, status: 403, reason: 'this link was issued to another user' };
  if (row.handoff.closedAt || row.handoff.expiresAt <= now) return { ok: false, status: 410, reason: 'the handoff is no longer open' };
  const consumed = await consumeSessionLink(db, handoffId, token, now);
  if (!consumed) return { ok: false, status: 401, reason: 'the session link is unknown or was already used' };
  return { ok: true, handoff: row.handoff };
}
