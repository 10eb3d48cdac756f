import { and, eq, isNull } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants, teamMemberships, type AssistantRow, type UserRow } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { notFound } from '@/server/http/errors';

/** Whether a user may see and hire an assistant: its scope decides (account, their organization, a team they are active in, themself). */
export async function visibleToUser(tx: Tx, user: UserRow, a: AssistantRow): Promise<boolean> {
  if (a.accountId !== user.accountId || a.deletedAt) return false;
  switch (a.scope) {
    case 'account':
      return true;
    case 'organization':
      return a.organizationId !== null && a.organizationId === user.organizationId;
    case 'team': {
      if (!a.teamId) return false;
      const [m] = await tx
        .select({ id: teamMemberships.id })
        .from(teamMemberships)
        .where(and(eq(teamMemberships.teamId, a.teamId), eq(teamMemberships.userId, user.id), eq(teamMemberships.status, 'active')));
      return Boolean(m);
    }
    case 'user':
      return a.userId === user.id;
  }
}

/** The assistant, for account-wide callers or a user who may see it; 404 otherwise. */
export async function visibleAssistant(tx: Tx, actor: Actor, id: string): Promise<AssistantRow> {
  const [a] = await tx
    .select()
    .from(assistants)
    .where(and(eq(assistants.id, id), eq(assistants.accountId, actor.accountId), isNull(assistants.deletedAt)));
  if (!a) throw notFound('Assistant');
  if (isAccountWide(actor)) return a;
  if (actor.user && (await visibleToUser(tx, actor.user, a))) return a;
  throw notFound('Assistant');
}
