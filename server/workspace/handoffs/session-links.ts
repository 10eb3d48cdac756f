import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { accounts, handoffSessionLinks } from '@/db/schema';
import { siteOrigin } from '@/server/hosted/origin';

/*
 * Single-use live-view links. The token is 32 random bytes shown once, in the URL; only its
 * SHA-256 is stored, so neither a database dump nor a log of stored rows opens a session. The
 * live view consumes it when it connects (consumeSessionLink): a second connection with the same
 * link, or one after it lapsed, is refused, and the link only ever acts for the user it was
 * issued to.
 */

/** How long an issued link may wait to be opened. */
export const LINK_TTL_MS = 10 * 60_000;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export async function issueSessionLink(tx: Tx, h: { id: string; accountId: string; userId: string }, now = new Date()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await tx.insert(handoffSessionLinks).values({ handoffId: h.id, userId: h.userId, tokenHash: hashToken(token), expiresAt: new Date(now.getTime() + LINK_TTL_MS) });
  const [account] = await tx.select({ hostedDomain: accounts.hostedDomain }).from(accounts).where(eq(accounts.id, h.accountId));
  const origin = siteOrigin(account?.hostedDomain ?? null).origin;
  return `${origin}/handoffs/${encodeURIComponent(h.id)}?token=${encodeURIComponent(token)}`;
}

/**
 * Marks the link used and returns whom it was issued to, or null when the token is unknown,
 * already used, lapsed, or for another handoff. One UPDATE decides, so two connections racing
 * with one token never both succeed.
 */
export async function consumeSessionLink(tx: Tx, handoffId: string, token: string, now = new Date()): Promise<{ userId: string } | null> {
  if (!token || token.length > 200) return null;
  const [row] = await tx
    .update(handoffSessionLinks)
    .set({ consumedAt: now })
    .where(
      and(
        eq(handoffSessionLinks.tokenHash, hashToken(token)),
        eq(handoffSessionLinks.handoffId, handoffId),
        isNull(handoffSessionLinks.consumedAt),
        gt(handoffSessionLinks.expiresAt, now),
      ),
    )
    .returning({ userId: handoffSessionLinks.userId });
  return row ?? null;
}
