import { and, eq, inArray, ne, or, type SQL } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { activeMemberships } from '@/db/queries/memberships';
import { contacts, teams, type ContactRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { badRequest, forbidden, notFound } from '@/server/http/errors';

/*
 * Team-scoped contacts (spec 1: "Sharing is explicit (for example a team-scoped memory…)"): a
 * contact its owner puts in a team's scope is shown to that team's active members, as a
 * team-scoped memory is. They read it; only its owner changes or deletes it (403 for a teammate,
 * 404 for anyone else). A user-scoped contact stays its owner's alone.
 */

export async function activeTeamIds(tx: Tx, userId: string): Promise<string[]> {
  return [...new Set((await activeMemberships(tx, userId)).map(({ m }) => m.teamId))];
}

/** Team contacts of these teams that another member owns: what a member sees beyond their own. */
export const teammatesContacts = (accountId: string, userId: string, teamIds: string[]): SQL =>
  and(eq(contacts.accountId, accountId), eq(contacts.scope, 'team'), inArray(contacts.teamId, teamIds), ne(contacts.userId, userId))!;

/** The contact, when the caller owns it or it is in the scope of one of their active teams; 404 otherwise. */
export async function readableContact(tx: Tx, actor: Actor, id: string): Promise<ContactRow> {
  const user = requireUser(actor);
  const teamIds = await activeTeamIds(tx, user.id);
  const mine = eq(contacts.userId, user.id);
  const [c] = await tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.id, id), eq(contacts.accountId, actor.accountId), teamIds.length ? or(mine, teammatesContacts(actor.accountId, user.id, teamIds)) : mine))
    .limit(1);
  if (!c) throw notFound('Contact');
  return c;
}

/** A teammate may read a team contact, never change it: 403 names why (they can see it exists). */
export async function refuseTeammate(tx: Tx, actor: Actor, id: string): Promise<never> {
  await readableContact(tx, actor, id);
  throw forbidden('Only the contact’s owner can change or delete it');
}

/** With scope team the team must be one the user is an active member of; it defaults to their active team. */
export async function resolveContactTeam(tx: Tx, actor: Actor, scope: 'user' | 'team', team: string | null | undefined): Promise<string | null> {
  if (scope === 'user') return null;
  const user = requireUser(actor);
  const mine = await activeTeamIds(tx, user.id);
  const teamId = team ?? mine[0];
  if (!teamId) throw badRequest('team: required with scope team (the user has no active team)');
  if (!mine.includes(teamId)) {
    const [exists] = await tx.select({ id: teams.id }).from(teams).where(and(eq(teams.id, teamId), eq(teams.accountId, actor.accountId)));
    if (!exists) throw notFound('Team');
    throw forbidden('team: the user is not an active member of this team');
  }
  return teamId;
}
