import type { Tx } from '@/db/client';
import type { TeamRow, UserRow } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { AppError, forbidden, notFound } from '@/server/http/errors';
import { teamFor } from './access';
import { ownedTeamWithOthers } from './membership';
import { transferIfNeeded } from './transfer';

/**
 * Whom this caller may place on `team`. Joining a team moves a person (their other
 * memberships are archived) and, for an organization's team, can make them its member, so
 * only the account itself may move people across that line: an account-wide credential
 * follows the spec (a user without an organization joins the team's; another
 * organization's user is 403). Everyone else (team admins, organization admins and keys)
 * reaches only people on the same side: the team's organization, or no organization for
 * a team outside any. Anyone else is 404, the same as a user who does not exist, so a team
 * admin learns nothing about people they cannot see.
 */
export function assertMayJoin(actor: Actor, user: UserRow, team: Pick<TeamRow, 'organizationId'>) {
  if (isAccountWide(actor)) {
    if (team.organizationId && user.organizationId && user.organizationId !== team.organizationId) throw forbidden('The user belongs to another organization');
    return;
  }
  if ((user.organizationId ?? null) !== (team.organizationId ?? null)) throw notFound('User');
}

/**
 * Before `user` moves: if they own a team that still has other active members, `newOwnerId`
 * takes it over (else 400 requiresOwnershipTransfer). Choosing who inherits a team is that
 * team's decision, so the caller must administer it: otherwise any team admin could hand a
 * stranger's team to an accomplice just by adding its owner to their own team.
 */
export async function handOverIfNeeded(tx: Tx, actor: Actor, user: UserRow, newOwnerId: string | undefined) {
  const owned = newOwnerId === undefined ? null : await ownedTeamWithOthers(tx, user.id);
  if (owned && !(await administers(tx, actor, owned))) {
    throw forbidden(`newOwnerId: only an admin of team ${owned} can choose its next owner; ask them to transfer its ownership first`, 'forbidden', { teamId: owned });
  }
  await transferIfNeeded(tx, user, newOwnerId);
}

async function administers(tx: Tx, actor: Actor, teamId: string) {
  try {
    return (await teamFor(tx, actor, teamId, 'read')).canAdmin;
  } catch (e) {
    if (e instanceof AppError && e.status === 404) return false;
    throw e;
  }
}
