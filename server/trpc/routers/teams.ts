import { z } from 'zod';
import { PolicyPatchBody } from '@/server/policy/contracts';
import { applySecurityPreset, getTeamPolicy, patchTeamPolicy } from '@/server/policy/team-policy';
import { teamPermissions } from '@/server/teams/access';
import { AddTeamMemberBody, ListTeamMembersQuery, UpdateTeamBody, UpdateTeamMemberBody } from '@/server/teams/contracts';
import { addTeamMember, addTeamMemberByEmail, listTeamMembers, removeTeamMember, transferOwnership, updateTeamMember } from '@/server/teams/members';
import { getTeam, listTeams, updateTeam } from '@/server/teams/service';
import { CreateJoinRequestBody, ListJoinRequestsQuery } from '@/server/team-joins/contracts';
import { decideJoinRequest, listJoinRequests, listMyJoinRequests, requestToJoin, withdrawJoinRequest } from '@/server/team-joins/service';
import { Email } from '@/server/user-record/contracts';
import { router, userProcedure } from '../init';

const Team = z.object({ teamId: z.string().min(1) });
const Member = Team.extend({ memberId: z.string().min(1) });
const JoinRequest = Team.extend({ requestId: z.string().min(1) });

/** Team settings in the hosted app: the same services (and rules) as /teams/{teamId}/... */
export const teamsRouter = router({
  get: userProcedure.input(Team).query(({ ctx, input }) => getTeam(ctx.db, ctx.actor, input.teamId)),
  update: userProcedure.input(Team.extend({ patch: UpdateTeamBody })).mutation(({ ctx, input }) => updateTeam(ctx.db, ctx.actor, input.teamId, input.patch)),
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
  /** Join requests (server/team-joins): the organization's teams one may ask to join, asking, and deciding. */
  joinable: userProcedure.query(({ ctx }) => listTeams(ctx.db, ctx.actor, { page: 1, perPage: 100, joinable: true })),
  myJoinRequests: userProcedure.query(({ ctx }) => listMyJoinRequests(ctx.db, ctx.actor)),
  askToJoin: userProcedure.input(Team.extend({ request: CreateJoinRequestBody.prefault({}) })).mutation(async ({ ctx, input }) => (await requestToJoin(ctx.db, ctx.actor, input.teamId, input.request)).body),
  withdrawJoinRequest: userProcedure.input(JoinRequest).mutation(({ ctx, input }) => withdrawJoinRequest(ctx.db, ctx.actor, input.teamId, input.requestId)),
  joinRequests: userProcedure.input(Team.extend({ query: ListJoinRequestsQuery.prefault({}) })).query(({ ctx, input }) => listJoinRequests(ctx.db, ctx.actor, input.teamId, input.query)),
  decideJoinRequest: userProcedure
    .input(JoinRequest.extend({ decision: z.enum(['approve', 'decline']) }))
    .mutation(({ ctx, input }) => decideJoinRequest(ctx.db, ctx.actor, input.teamId, input.requestId, input.decision)),
  applyRestrictedPreset: userProcedure.input(Team).mutation(({ ctx, input }) => applySecurityPreset(ctx.db, ctx.actor, input.teamId)),
});
