import { z } from 'zod';
import { PageFields, PageQuery } from '@/server/http/pagination';
import { UserResponse } from '@/server/user-record/contracts';

export const TeamResponse = z.object({
  id: z.string(),
  account: z.string(),
  organization: z.string().nullable(),
  name: z.string(),
  generalInfo: z.string(),
  adminApprovalRequired: z.boolean(),
  brandingOnEvents: z.boolean(),
  brandingOnMessages: z.boolean(),
  status: z.enum(['active', 'archived']),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const TeamEnvelope = z.object({ ok: z.literal(true), team: TeamResponse });
export const ListTeamsQuery = PageQuery.extend({
  status: z.enum(['active', 'archived']).optional(),
  joinable: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true: the active teams of your organization you are not a member of, which you may ask to join (POST /teams/{teamId}/join-requests)'),
});
export const ListTeamsResponse = z.object({ ok: z.literal(true), teams: z.array(TeamResponse), ...PageFields });
export const CreateTeamBody = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  adminApprovalRequired: z.boolean().optional(),
  ownerId: z.string().min(1).optional(),
  newOwnerId: z.string().min(1).optional(),
});
export const UpdateTeamBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  generalInfo: z.string().max(20_000).optional(),
  adminApprovalRequired: z.boolean().optional(),
  status: z.enum(['active', 'archived']).optional(),
  brandingOnEvents: z.boolean().optional(),
  brandingOnMessages: z.boolean().optional(),
});
export const TeamParams = z.object({ teamId: z.string().min(1) });
export const MemberParams = TeamParams.extend({ memberId: z.string().min(1) });
export const DeletedTeamResponse = z.object({ ok: z.literal(true), team: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });

export const TeamMemberResponse = z.object({
  id: z.string(),
  user: UserResponse,
  role: z.enum(['member', 'admin', 'owner']),
  status: z.enum(['active', 'invited', 'archived']),
  multiplier: z.number().nullable(),
  assistantInfo: z.object({ id: z.string(), name: z.string(), email: z.string(), avatarUrl: z.string().nullable() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const MemberEnvelope = z.object({ ok: z.literal(true), member: TeamMemberResponse });
export const ListTeamMembersQuery = PageQuery.extend({ status: z.enum(['active', 'invited', 'archived']).optional(), search: z.string().max(200).optional() });
export const ListTeamMembersResponse = z.object({ ok: z.literal(true), members: z.array(TeamMemberResponse), ...PageFields });
export const AddTeamMemberBody = z.object({ userId: z.string().min(1, 'is required'), role: z.enum(['member', 'admin']).default('member'), newOwnerId: z.string().min(1).optional() });
export const UpdateTeamMemberBody = z.object({ role: z.enum(['member', 'admin', 'owner']).optional(), status: z.enum(['active', 'invited', 'archived']).optional() });
export const DeletedTeamMemberResponse = z.object({ ok: z.literal(true), member: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });
export const TransferOwnershipBody = z.object({ newOwnerId: z.string().min(1, 'is required') });
export const TransferOwnershipResponse = z.object({ ok: z.literal(true), team: z.object({ id: z.string(), owner: z.string() }) });
