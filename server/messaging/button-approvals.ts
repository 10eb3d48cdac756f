import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, channelApprovalPosts, users, type ApprovalPostRef, type UserRow } from '@/db/schema';
import type { PortChatApp } from '@/db/schema/channel-names';
import type { UserActor } from '@/server/access/actor';
import { decideCart } from '@/server/approvals/decide';
import { signalAfterCommit } from '@/server/approvals/signals';
import { linkedUserId, type ChannelProvider } from '@/server/channels/slack/identities';
import { AppError } from '@/server/http/errors';

/*
 * Approvals as buttons (issue 33). The approvals area refuses the `channel` credential on purpose:
 * a From line or a number can be forged elsewhere, and a message is not a decision. A button press
 * is a different, narrower thing, and this module is the only place that accepts it:
 *
 *   ButtonPress — "a press of Approve or Reject, on one cart version, by a provider identity":
 *   - signed by the provider: Slack's v0 signature with the app's signing secret (the interactivity
 *     endpoint), or the Bot Connector's JWT (the Teams endpoint), checked before a press is built;
 *   - by the identity linked to the cart's owner (channel_identities: Slack's link flow, a connected
 *     tenant's directory) — anyone else's press is refused, whatever the message shows; on Slack,
 *     linked through the very app that received the press;
 *   - on the card Steward posted for that version to that owner, where it was posted: the stored
 *     post (channel_approval_posts) names the app, the conversation and the message (Slack: app,
 *     workspace, channel, ts; Teams: conversation and activity id). A press that names a cart and
 *     a hash it read elsewhere — on another app of the account, signed with that app's secret by
 *     whoever set it — matches no post, and decides nothing (issue 40);
 *   - bound to the contentHash the button was posted with: a cart edited since refuses the press
 *     (cart_content_changed), exactly as approve with a stale hash does;
 *   - good for this one decision only: it approves or rejects that cart, nothing else.
 *
 * The press becomes a `decision` credential for that cart version, and the approvals area decides
 * by its own rules (approvals/decide.ts, the code approve in the app runs): the cart row locked,
 * the move table, a closed task withdraws the cart, the audit event (with `via`) in the same
 * transaction, execution queued in it. The owner is the one who decided (`resolvedByUserId`).
 */

export type ButtonPress = {
  provider: ChannelProvider;
  /** How the press was verified (by the adapter's webhook: Slack's signature v0, the Bot Connector's JWT, Telegram's secret); recorded with the decision. */
  verifiedBy: 'port_webhook';
  accountId: string;
  /** Slack workspace or Microsoft tenant, and the presser's id there. */
  workspaceId: string;
  externalUserId: string;
  cartId: string;
  contentHash: string;
  decision: 'approve' | 'reject';
  /**
   * Where the pressed card is, as the signed payload names it: the connection (app, bot) that
   * received the press, the thread and the message; `linkedThrough`, the connection a presser's
   * link must name (null: any link, a deployment-wide bot's, whose links come from a tenant's directory).
   */
  shownIn: { provider: PortChatApp; connectionId: string; thread: string; messageRef: string; linkedThrough: string | null };
};

export type PressOutcome =
  | { ok: true; decision: 'approved' | 'rejected'; userId: string }
  | {
      ok: false;
      code: 'not_owner' | 'cart_content_changed' | 'cart_already_resolved' | 'cart_task_closed' | 'invalid_transition' | 'owner_cannot_act' | 'queuing_failed';
      message: string;
      cartStatus?: string;
    };

const NOT_OWNER = 'Only the person this approval belongs to can decide on it, from their own linked account.';
const NOT_SHOWN = 'This button is not on an approval Steward posted to you here: nothing was decided. Use the approval message Steward sent you, or the app.';

/**
 * The owner as the press acts for them: their rights, and a decision credential good for this
 * cart version only (approvals/decide.ts refuses it for anything else).
 */
function pressActor(user: UserRow, press: ButtonPress, account: { killSwitch: boolean }): UserActor {
  return {
    accountId: user.accountId,
    credential: { kind: 'decision', via: `${press.provider}_button`, cartId: press.cartId, contentHash: press.contentHash },
    level: 'user',
    organizationId: null,
    user,
    actingVia: null,
    scopes: [],
    account: { killSwitch: account.killSwitch, rateLimitReads: null, rateLimitWrites: null },
  };
}

const refused = (e: unknown): PressOutcome => {
  if (e instanceof AppError) {
    const code = (['cart_content_changed', 'cart_already_resolved', 'cart_task_closed', 'invalid_transition', 'queuing_failed'] as const).find((c) => c === e.code);
    if (code) return { ok: false, code, message: e.message, cartStatus: e.extra.cartStatus as string | undefined };
    if (e.status === 404 || e.status === 403) return { ok: false, code: 'not_owner', message: NOT_OWNER };
  }
  throw e;
};

/** The stored post the press must have come from: that card version, to that user, where it says it is. */
function postRef(press: ButtonPress): Partial<ApprovalPostRef> {
  const s = press.shownIn;
  return { provider: s.provider, connectionId: s.connectionId, thread: s.thread, messageRef: s.messageRef };
}

async function shownThere(db: Db, press: ButtonPress, userId: string): Promise<boolean> {
  const ref = postRef(press);
  if (press.shownIn.provider !== press.provider) return false;
  const [post] = await db
    .select({ id: channelApprovalPosts.id })
    .from(channelApprovalPosts)
    .where(
      and(
        eq(channelApprovalPosts.cartId, press.cartId),
        eq(channelApprovalPosts.accountId, press.accountId),
        eq(channelApprovalPosts.provider, press.provider),
        eq(channelApprovalPosts.contentHash, press.contentHash),
        eq(channelApprovalPosts.userId, userId),
        isNotNull(channelApprovalPosts.ref),
        sql`${channelApprovalPosts.ref} @> ${JSON.stringify(ref)}::jsonb`,
      ),
    )
    .limit(1);
  return Boolean(post);
}

/** Decides a cart on a verified press; every refusal is an outcome to show, never a thrown error. */
export async function decideByButton(db: Db, press: ButtonPress): Promise<PressOutcome> {
  // A Slack app or an assistant's own bot links an identity through itself: a press counts only through that one.
  const throughApp = press.shownIn.linkedThrough ?? undefined;
  const userId = await linkedUserId(db, press.accountId, press.provider, press.workspaceId, press.externalUserId, throughApp);
  if (!userId) return { ok: false, code: 'not_owner', message: NOT_OWNER };
  if (!(await shownThere(db, press, userId))) return { ok: false, code: 'not_owner', message: NOT_SHOWN };
  const [row] = await db.select({ user: users, killSwitch: accounts.killSwitch }).from(users).innerJoin(accounts, eq(accounts.id, users.accountId)).where(eq(users.id, userId));
  if (!row || row.user.accountId !== press.accountId) return { ok: false, code: 'not_owner', message: NOT_OWNER };
  if (row.user.status !== 'active') return { ok: false, code: 'owner_cannot_act', message: 'Your account is blocked: nothing was decided.' };
  const actor = pressActor(row.user, press, row);
  const where = `${{ slack: 'Slack', teams: 'Teams', telegram: 'Telegram' }[press.provider]} (${press.workspaceId}/${press.externalUserId})`;
  try {
    const outcome = await db.transaction((tx) =>
      decideCart(tx, actor, press.cartId, { decision: press.decision, contentHash: press.contentHash, reason: `${press.decision === 'approve' ? 'Approved' : 'Rejected'} with a button in ${where}` }),
    );
    if (outcome === 'rejected') return { ok: true, decision: 'rejected', userId };
    if (outcome === 'task_closed') return { ok: false, code: 'cart_task_closed', message: 'The task was closed, so its staged actions were withdrawn: nothing was approved or sent.', cartStatus: 'cancelled' };
    if (outcome === 'approved_early') signalAfterCommit({ kind: 'decided', cartId: press.cartId, accountId: press.accountId });
    return { ok: true, decision: 'approved', userId };
  } catch (e) {
    return refused(e);
  }
}
