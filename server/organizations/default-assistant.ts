import { and, eq, isNull, or } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants, rosterEntries, users, type OrganizationRow, type UserRow } from '@/db/schema';

/*
 * The organization's defaultAssistant (spec 1, PUT /organizations/{orgId}): the assistant every
 * person placed in the organization finds on their roster, primary when they have none yet. Only
 * an assistant all its members may use can be the default (account-wide, or the organization's
 * own); a team's or a person's assistant is refused when it is set. The assistants area owns
 * rosters, but sits above organizations, so this writes the roster table directly (db/).
 */

/** Whether an assistant may be the organization's default: every member can use it. */
export const usableByEveryMember = (a: { scope: string; organizationId: string | null }, orgId: string) =>
  a.scope === 'account' || (a.scope === 'organization' && a.organizationId === orgId);

/** Puts the organization's default assistant on the user's roster (primary if they have none); nothing when unset or gone. */
export async function hireDefaultAssistant(tx: Tx, org: Pick<OrganizationRow, 'id' | 'defaultAssistantId'>, user: Pick<UserRow, 'id' | 'accountId' | 'primaryAssistantId'>): Promise<void> {
  if (!org.defaultAssistantId) return;
  const [a] = await tx
    .select({ id: assistants.id, scope: assistants.scope, organizationId: assistants.organizationId })
    .from(assistants)
    .where(and(eq(assistants.id, org.defaultAssistantId), eq(assistants.accountId, user.accountId), isNull(assistants.deletedAt), or(eq(assistants.scope, 'account'), eq(assistants.scope, 'organization'))));
  if (!a || !usableByEveryMember(a, org.id)) return;
  await tx.insert(rosterEntries).values({ userId: user.id, assistantId: a.id }).onConflictDoNothing();
  if (!user.primaryAssistantId) await tx.update(users).set({ primaryAssistantId: a.id }).where(and(eq(users.id, user.id), isNull(users.primaryAssistantId)));
}
