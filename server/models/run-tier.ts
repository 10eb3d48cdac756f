import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { organizations } from '@/db/schema';
import { resolveTier, type ModelTier } from './tiers';

/**
 * The tier of a task or chat created through the API: its own `modelTier`, else its owner's
 * organization default for that kind, else the account default, else `medium`. The account
 * default is a console setting that does not exist yet, so it is always unset here.
 */
export async function runTier(
  db: Db,
  input: { accountId: string; organizationId: string | null; kind: 'task' | 'chat'; own?: ModelTier | null },
): Promise<ModelTier> {
  if (input.own) return input.own;
  let organizationTier: ModelTier | null = null;
  if (input.organizationId) {
    const [org] = await db
      .select({ task: organizations.taskModelTier, chat: organizations.chatModelTier })
      .from(organizations)
      .where(and(eq(organizations.id, input.organizationId), eq(organizations.accountId, input.accountId)));
    organizationTier = org?.[input.kind] ?? null;
  }
  return resolveTier({ taskTier: input.own, organizationTier, accountTier: null });
}
