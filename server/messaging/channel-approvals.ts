import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, carts, channelApprovalPosts, users, type ApprovalPostRef, type ChannelApprovalPostRow, type DispatchContent } from '@/db/schema';
import type { PortChatApp } from '@/db/schema/channel-names';
import type { chatAppChannels } from '@/db/schema/channel-names';
import type { UserActor } from '@/server/access/actor';
import { getCart } from '@/server/approvals/service';
import { portAdapter } from '@/server/channels/adapters';
import { sendToOwner } from '@/server/channels/port-send';
import { teamsBotConfig } from '@/server/channels/teams/config';
import { updateActivity } from '@/server/channels/teams/connector';
import { ADAPTIVE_CARD, closedCard } from '@/server/channels/teams/transform';
import { siteOrigin } from '@/server/hosted/origin';
import { logger } from '@/server/logger';
import type { PressOutcome } from './button-approvals';

/*
 * Approval cards on the chat apps behind the channel port (Slack, Teams, Telegram; issues 33, 41).
 * A cart waiting for its owner (pending_approval) is posted to the owner's 1:1 thread with the
 * cart's assistant on every channel where they have a linked identity — once per cart
 * version (channel_approval_posts is unique per cart, provider and contentHash; the row is claimed
 * before the post, so two sweeps never post twice), its buttons bound to that post. An edit makes a
 * new version: it is posted again and the old card is told it is out of date (its buttons would
 * refuse anyway: their post is of the old hash). A cart decided elsewhere (the app, email, the
 * API) has its card closed.
 */

/** What a card shows of a cart (the approvals area's public cart has this shape): each dispatch exactly as it will be sent. */
export type ShownCart = {
  id: string;
  taskTitle: string;
  assistantName: string | null;
  contentHash: string;
  dispatches: Array<
    Pick<DispatchContent, 'type' | 'platform' | 'from' | 'to' | 'cc' | 'bcc' | 'subject' | 'body' | 'description' | 'payload'> & {
      index: number;
      files: Array<{ filename: string }>;
      heldBecause?: { kind: string; sources: Array<{ kind: string; ref: string }> } | null;
    }
  >;
};

export type ChannelKind = (typeof chatAppChannels)[number];

export function outcomeText(outcome: PressOutcome): string {
  if (outcome.ok) return outcome.decision === 'approved' ? '✅ Approved by you: it is being sent now.' : '❌ Rejected by you: nothing was sent.';
  switch (outcome.code) {
    case 'cart_content_changed':
      return '⚠️ Not decided: this approval changed after it was posted (cart_content_changed). Nothing was approved or rejected; the current version was posted again.';
    case 'cart_already_resolved':
      return `This approval was already decided (it is ${outcome.cartStatus ?? 'resolved'}).`;
    case 'queuing_failed':
      return '⚠️ It could not be queued for sending: nothing was approved. Press Approve again.';
    default:
      return outcome.message;
  }
}

/** The owner reading their cart: the approvals area's own read, with the owner's rights. */
function readerActor(user: typeof users.$inferSelect): UserActor {
  return { accountId: user.accountId, credential: { kind: 'channel', channel: 'approval-card' }, level: 'user', organizationId: null, user, actingVia: null, scopes: [], account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null } };
}

type Candidate = { cartId: string; userId: string; provider: ChannelKind; contentHash: string };

/** Carts waiting for an owner who has a linked identity, in a version not posted there yet. */
async function candidates(db: Db, limit = 50): Promise<Candidate[]> {
  const { rows } = await db.execute<{ cart_id: string; user_id: string; provider: ChannelKind; content_hash: string }>(sql`
    SELECT c.id AS cart_id, c.user_id, i.provider, c.content_hash
    FROM carts c
    JOIN (SELECT DISTINCT user_id, provider FROM channel_identities) i ON i.user_id = c.user_id
    WHERE c.status = 'pending_approval'
      AND NOT EXISTS (SELECT 1 FROM channel_approval_posts p WHERE p.cart_id = c.id AND p.provider = i.provider AND p.content_hash = c.content_hash)
    ORDER BY c.created_at
    LIMIT ${limit}`);
  return rows.map((r) => ({ cartId: r.cart_id, userId: r.user_id, provider: r.provider, contentHash: r.content_hash }));
}

type Posted = { ok: true; ref: ApprovalPostRef } | { ok: false; reason: string };

/** The most of a card's words a chat app is sent (Teams' card limit, Telegram's messages, Slack's blocks all hold it). */
const CARD_MAX = 12_000;

/**
 * The cart as its owner reads it in a plain-text card: each action with its recipients and words.
 * `decidable`: the whole cart fits. A cart that does not is not approved from a card: what cannot
 * be shown whole is approved where it can be read (the approvals page), so its card has no buttons.
 * `words`: what the card shows of the cart, without its way to decide (kept on the card once decided).
 */
export function cartCard(cart: ShownCart, approvalsUrl: string): { text: string; decidable: boolean; words: string } {
  const lines = [`Approval needed: ${cart.taskTitle}`, ''];
  const heads: string[] = [];
  for (const d of cart.dispatches) {
    const head = `${d.index + 1}. ${d.type.replace('_', ' ')} on ${d.platform} to ${d.to.join(', ') || '(nobody)'}`;
    heads.push(head.slice(0, 300));
    lines.push(head);
    if (d.cc.length) lines.push(`Cc: ${d.cc.join(', ')}`);
    if (d.bcc.length) lines.push(`Bcc: ${d.bcc.join(', ')}`);
    if (d.from) lines.push(`From: ${d.from}`);
    if (d.subject) lines.push(`Subject: ${d.subject}`);
    if (d.description) lines.push(d.description);
    if (d.body) lines.push(d.body);
    if (d.payload && Object.keys(d.payload).length) lines.push(JSON.stringify(d.payload, null, 2));
    if (d.files.length) lines.push(`Files: ${d.files.map((f) => f.filename).join(', ')}`);
    if (d.heldBecause) lines.push(`Held because it read content from outside you (${d.heldBecause.sources.map((x) => x.ref).join(', ')}).`);
    lines.push('');
  }
  const words = lines.join('\n').trimEnd();
  const whole = `${words}\n\nOr decide in the app: ${approvalsUrl}`;
  if (whole.length <= CARD_MAX) return { text: whole, decidable: true, words };
  const listed = [`Approval needed: ${cart.taskTitle}`, '', ...heads.slice(0, 20)].join('\n').slice(0, CARD_MAX - 400);
  return { text: `${listed}\n\nThis approval is too long to show here in full, so it cannot be approved here. Read and decide on it in your approvals: ${approvalsUrl}`, decidable: false, words: listed };
}

/**
 * What a card of this version showed of its cart, for the card to keep once decided; null when the
 * cart is no longer that version (an edit made a new one) or cannot be read.
 */
export async function wordsOfCard(db: Db, post: Pick<ChannelApprovalPostRow, 'cartId' | 'userId' | 'contentHash'>): Promise<string | null> {
  const [row] = await db.select({ user: users, hostedDomain: accounts.hostedDomain }).from(users).innerJoin(accounts, eq(accounts.id, users.accountId)).where(eq(users.id, post.userId));
  if (!row) return null;
  const read = await getCart(db, readerActor(row.user), post.cartId).catch(() => null);
  if (!read || read.cart.contentHash !== post.contentHash) return null;
  return cartCard(read.cart, `${siteOrigin(row.hostedDomain).origin}/approvals`).words;
}

/** A port adapter's card: to the owner's 1:1 thread with the cart's assistant's own connection, the buttons bound to this post. */
async function postPort(db: Db, provider: PortChatApp, post: ChannelApprovalPostRow, assistantId: string, cart: ShownCart, approvalsUrl: string): Promise<Posted> {
  const card = cartCard(cart, approvalsUrl);
  const d = await sendToOwner(db, {
    channel: provider,
    assistantId,
    userId: post.userId,
    text: card.text,
    ...(card.decidable
      ? {
          buttons: [
            { text: 'Approve', decision: 'approve', binding: post.id },
            { text: 'Reject', decision: 'reject', binding: post.id },
          ],
        }
      : {}),
  });
  if (d.state !== 'accepted' || !d.providerMessageId || !d.thread || !d.connectionId) return { ok: false, reason: 'reason' in d ? d.reason : 'not posted' };
  return { ok: true, ref: { provider, connectionId: d.connectionId, thread: d.thread, messageRef: d.providerMessageId } };
}

/** Posts one cart version to one provider, once. */
async function postOne(db: Db, c: Candidate): Promise<void> {
  const [row] = await db.select({ user: users, hostedDomain: accounts.hostedDomain }).from(users).innerJoin(accounts, eq(accounts.id, users.accountId)).where(eq(users.id, c.userId));
  if (!row) return;
  const [claimed] = await db
    .insert(channelApprovalPosts)
    .values({ accountId: row.user.accountId, cartId: c.cartId, userId: c.userId, provider: c.provider, contentHash: c.contentHash })
    .onConflictDoNothing()
    .returning();
  if (!claimed) return;
  try {
    await post(db, c, claimed, row);
  } catch (err) {
    await db.update(channelApprovalPosts).set({ state: 'failed', outcome: 'the card could not be built' }).where(eq(channelApprovalPosts.id, claimed.id));
    throw err;
  }
}

async function post(db: Db, c: Candidate, claimed: ChannelApprovalPostRow, row: { user: typeof users.$inferSelect; hostedDomain: string | null }): Promise<void> {
  const { cart } = await getCart(db, readerActor(row.user), c.cartId);
  const [cartRow] = await db.select({ assistantId: carts.assistantId }).from(carts).where(eq(carts.id, c.cartId));
  if (cart.status !== 'pending_approval' || cart.contentHash !== c.contentHash) {
    await db.update(channelApprovalPosts).set({ state: 'closed', outcome: 'changed before it was posted' }).where(eq(channelApprovalPosts.id, claimed.id));
    return;
  }
  const approvalsUrl = `${siteOrigin(row.hostedDomain).origin}/approvals`;
  const posted = await postPort(db, c.provider, claimed, cartRow?.assistantId ?? '', cart, approvalsUrl);
  // A failed or unknown post is not tried again for this version: a duplicate card is worse than the email the owner got anyway.
  await db
    .update(channelApprovalPosts)
    .set(posted.ok ? { state: 'posted', ref: posted.ref } : { state: 'failed', outcome: posted.reason.slice(0, 500) })
    .where(eq(channelApprovalPosts.id, claimed.id));
  if (!posted.ok) logger.warn({ cartId: c.cartId, provider: c.provider, reason: posted.reason }, 'approval card: not posted');
}

/**
 * Replaces a posted card's buttons with a line (its adapter's closeButtons, through the connection
 * it was posted with; a Teams card posted before Teams moved behind the port: a card with the
 * line, where it was posted).
 */
async function closeCard(db: Db, ref: ApprovalPostRef, assistantId: string, line: string, words: string | null): Promise<void> {
  if ('serviceUrl' in ref) {
    const cfg = teamsBotConfig();
    if (cfg) await updateActivity(cfg, ref.serviceUrl, ref.conversationId, ref.activityId, { type: 'message', attachments: [{ contentType: ADAPTIVE_CARD, content: closedCard(line, words) }] });
    return;
  }
  const adapter = portAdapter(ref.provider);
  const connection = adapter ? await adapter.connectionFor(db, assistantId, ref.thread) : null;
  if (adapter?.closeButtons && connection?.id === ref.connectionId) await adapter.closeButtons(db, connection, { thread: ref.thread, messageRef: ref.messageRef }, line, words);
}

/** Marks the card of a version decided by a press (so the sweep leaves it alone). */
export async function markCardDecided(db: Db, cartId: string, provider: ChannelKind, contentHash: string, outcome: string): Promise<void> {
  await db
    .update(channelApprovalPosts)
    .set({ state: 'closed', outcome })
    .where(and(eq(channelApprovalPosts.cartId, cartId), eq(channelApprovalPosts.provider, provider), eq(channelApprovalPosts.contentHash, contentHash)));
}

/** Posted cards whose cart moved on without them: an older version, or decided elsewhere. */
async function settled(db: Db, limit = 50): Promise<Array<{ post: ChannelApprovalPostRow; status: string; hash: string; assistantId: string }>> {
  const rows = await db
    .select({ post: channelApprovalPosts, status: carts.status, hash: carts.contentHash, assistantId: carts.assistantId })
    .from(channelApprovalPosts)
    .innerJoin(carts, eq(carts.id, channelApprovalPosts.cartId))
    .where(and(eq(channelApprovalPosts.state, 'posted'), sql`(${carts.status} <> 'pending_approval' OR ${carts.contentHash} <> ${channelApprovalPosts.contentHash})`))
    .limit(limit);
  return rows;
}

export async function closeSettledCards(db: Db): Promise<void> {
  for (const { post, status, hash, assistantId } of await settled(db)) {
    const changed = hash !== post.contentHash;
    const line =
      status === 'pending_approval' && changed
        ? 'This approval was changed after it was posted: this version can no longer be approved. The current version is in a newer message.'
        : `This approval was decided elsewhere: it is ${status}.`;
    const [closed] = await db.update(channelApprovalPosts).set({ state: 'closed', outcome: line }).where(and(eq(channelApprovalPosts.id, post.id), ne(channelApprovalPosts.state, 'closed'))).returning();
    if (!closed || !post.ref) continue;
    // A version decided elsewhere keeps its words; an out-of-date one shows the line alone (its words are no longer the cart's).
    const words = changed ? null : await wordsOfCard(db, post).catch(() => null);
    await closeCard(db, post.ref, assistantId, line, words).catch((err: unknown) => logger.warn({ err, cartId: post.cartId }, 'approval card: could not be closed'));
  }
}

export async function postPendingApprovals(db: Db): Promise<void> {
  for (const c of await candidates(db)) {
    await postOne(db, c).catch((err: unknown) => logger.warn({ err, cartId: c.cartId, provider: c.provider }, 'approval card: posting failed'));
  }
}
