import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { channelApprovalPosts } from '@/db/schema';
import type { Posted, SlackFake } from './slack-fake';

/*
 * Approval cards as the loopback Slack recorded them (issue 41): their buttons carry the binding of
 * the post (channel_approval_posts.id), which names the cart version, and nothing else.
 */

export const bindingOn = (m: Posted) => String((((m.blocks ?? []).find((b) => b.type === 'actions')?.elements ?? []) as Array<{ value?: string }>)[0]?.value ?? '');

/** A card of the cart posted to Slack (found through its buttons' binding), other than the one at `not`; null until there is one. */
export function slackCardOf(db: () => Db, slack: SlackFake, cartId: string, not?: string) {
  return async (): Promise<Posted | null> => {
    const ids = (await db().select({ id: channelApprovalPosts.id }).from(channelApprovalPosts).where(eq(channelApprovalPosts.cartId, cartId))).map((p) => p.id);
    return slack.posted.find((m) => ids.includes(bindingOn(m)) && m.ts !== not) ?? null;
  };
}

/** The contentHash of the cart version a card's buttons are bound to. */
export async function hashOnCard(db: () => Db, m: Posted): Promise<string | null> {
  const [post] = await db().select({ contentHash: channelApprovalPosts.contentHash }).from(channelApprovalPosts).where(eq(channelApprovalPosts.id, bindingOn(m)));
  return post?.contentHash ?? null;
}
