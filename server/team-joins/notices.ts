import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { teamMemberships, users, type TeamJoinRequestRow, type TeamRow, type UserRow } from '@/db/schema';
import { createNotice } from '@/server/notices/create';

const nameOf = (u: UserRow) => u.name || [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email;

/**
 * Who decides a team's requests: its owner and admins; a team without any (its admins left) falls
 * to its organization's admins, who administer every team of the organization.
 */
async function deciders(tx: Tx, team: TeamRow): Promise<string[]> {
  const admins = await tx
    .select({ userId: teamMemberships.userId })
    .from(teamMemberships)
    .innerJoin(users, eq(users.id, teamMemberships.userId))
    .where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.status, 'active'), inArray(teamMemberships.role, ['owner', 'admin']), eq(users.status, 'active')));
  if (admins.length > 0 || !team.organizationId) return admins.map((a) => a.userId);
  const orgAdmins = await tx
    .select({ userId: users.id })
    .from(users)
    .where(and(eq(users.organizationId, team.organizationId), eq(users.organizationRole, 'admin'), eq(users.status, 'active')));
  return orgAdmins.map((a) => a.userId);
}

/** Each person who can decide hears of a new request once, with the person's note. */
export async function tellAdminsOfRequest(tx: Tx, team: TeamRow, requester: UserRow, req: TeamJoinRequestRow) {
  const note = req.message ? `\n\nTheir note: “${req.message}”` : '';
  for (const userId of await deciders(tx, team)) {
    await createNotice(tx, {
      accountId: team.accountId,
      userId,
      kind: 'team_join',
      dedupeKey: `team_join:${req.id}:${userId}`,
      subject: `${nameOf(requester)} asks to join ${team.name}`,
      text: `${nameOf(requester)} (${requester.email}) asks to join your team ${team.name}.${note}\n\nApprove or decline the request on the team’s page.`,
      linkPath: `/teams/${team.id}`,
    });
  }
}

/** The person hears how their request was decided. */
export async function tellRequesterOfDecision(tx: Tx, team: TeamRow, requester: UserRow, req: TeamJoinRequestRow) {
  const approved = req.status === 'approved';
  await createNotice(tx, {
    accountId: team.accountId,
    userId: requester.id,
    kind: 'team_join',
    dedupeKey: `team_join:${req.id}:decided`,
    subject: approved ? `You joined ${team.name}` : `Your request to join ${team.name} was declined`,
    text: approved
      ? `A team admin approved your request: you are now a member of ${team.name}, and your previous team membership is archived.`
      : `A team admin declined your request to join ${team.name}. Nothing about your current team has changed.`,
    linkPath: approved ? `/teams/${team.id}` : '/',
  });
}
