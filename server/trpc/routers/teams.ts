import { z } from 'zod';
import { PolicyPatchBody } from '@/server/policy/contracts';
import { applySecurityPreset, getTeamPolicy, patchTeamPolicy } from '@/server/policy/team-policy';
import { teamPermissions } from '@/server/teams/access';
import { AddTeamMemberBody, ListTeamMembersQuery, UpdateTeamMemberBody } from '@/server/teams/contracts';
import { addTeamMember, addTeamMemberByEmail, listTeamMembers, removeTeamMember, transferOwnership, updateTeamMember } from '@/server/teams/members';
import { getTeam } from '@/server/teams/service';
import { Email } from '@/server/user-record/contracts';
import { router, userProcedure } from '../init';

const Team = z.object({ teamId: z.string().min(1) });
const Member = Team.extend({ memberId: z.string().min(1) });

/** Team settings in the hosted app: the same services (and rules) as /teams/{teamId}/... */
export const teamsRouter = router({
  get: userProcedure.input(Team).query(({ ctx, input }) => getTeam(ctx.db, ctx.actor, input.teamId)),
  /** What the session may do here, by the services' own rule (the page shows admin panels from it). */
  permissions: userProcedure.input(Team).query(({ ctx, input }) => teamPermissions(ctx.db, ctx.actor, input.teamId)),
  members: userProcedure.input(Team.extend({ query: ListTeamMembersQuery.prefault({}) })).query(({ ctx, input }) => listTeamMembers(ctx.db, ctx.actor, input.teamId, input.query)),
  addMember: userProcedure.input(Team.extend({ member: AddTeamMemberBody })).mutation(({ ctx, input }) => addTeamMember(ctx.db, ctx.actor, input.teamId, input.member)),
  addMemberByEmail: userProcedure
    .input(Team.extend({ email: Email, role: z.enum(['member', 'admin']).default('member') }))
    .mutation(({ ctx, input }) => addTeamMemberByEmail(ctx.db, ctx.actor, input.teamId, { email: input.email, role: input.role })),
  updateMember: userProcedure.input(Member.extend({ patch: UpdateTeamMemberBody })).mutation(({ ctx, input }) => updateTeamMember(ctx.db, ctx.actor, input.teamId, input.memberId, input.patch)),
  removeMember: userProcedure.input(Member).mutation(({ ctx, input }) => removeTeamMember(ctx.db, ctx.actor, input.teamId, input.memberId)),
  transferOwnership: userProcedure.input(Team.extend({ newOwnerId: z.string().min(1) })).mutation(({ ctx, input }) => transferOwnership(ctx.db, ctx.actor, input.teamId, input.newOwnerId)),
  policy: userProcedure.input(Team).query(({ ctx, input }) => getTeamPolicy(ctx.db, ctx.actor, input.teamId)),
  patchPolicy: userProcedure.input(Team.extend({ patch: PolicyPatchBody })).mutation(({ ctx, input }) => patchTeamPolicy(ctx.db, ctx.actor, input.teamId, input.patch)),
  applyRestrictedPreset: userProcedure.input(Team).mutation(({ ctx, input }) => applySecurityPreset(ctx.db, ctx.actor, input.teamId)),
});
