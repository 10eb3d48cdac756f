import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { organizations, type ChatRow, type UserRow } from '@/db/schema';
import { accountDefaultTier } from '@/server/policy/segments-resolve';

/**
 * A new chat's tier when the caller names none (spec document 2, Model tiers): the user's
 * organization's chat default, then the account's, then `medium`. Fixed once the chat exists.
 */
export async function chatTier(db: Tx, user: Pick<UserRow, 'accountId' | 'organizationId'>): Promise<ChatRow['modelTier']> {
  if (user.organizationId) {
    const [org] = await db.select({ tier: organizations.chatModelTier }).from(organizations).where(eq(organizations.id, user.organizationId));
    if (org?.tier) return org.tier;
  }
  return (await accountDefaultTier(db, user.accountId, 'chat')) ?? 'medium';
}
