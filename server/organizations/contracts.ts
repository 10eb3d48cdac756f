import { z } from 'zod';
import { PageFields, PageQuery } from '@/server/http/pagination';
import { Email } from '@/server/user-record/contracts';

export const Tier = z.enum(['low', 'medium', 'high', 'ultra'], { message: 'must be one of low, medium, high, ultra' });

export const OrganizationResponse = z.object({
  id: z.string(),
  account: z.string(),
  name: z.string(),
  generalInfo: z.string(),
  memberCount: z.number().int(),
  defaultTeam: z.string().nullable(),
  defaultAssistant: z.string().nullable(),
  sso: z.record(z.string(), z.unknown()).optional(),
  scim: z.object({ enabled: z.boolean(), endpoint: z.string().nullable(), hasToken: z.boolean(), tokenCreatedAt: z.string().nullable(), version: z.string() }).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const OrganizationEnvelope = z.object({ ok: z.literal(true), organization: OrganizationResponse });
export const ListOrganizationsResponse = z.object({ ok: z.literal(true), organizations: z.array(OrganizationResponse), ...PageFields });
export const CreateOrganizationBody = z.object({ name: z.string().trim().min(1, 'is required').max(200), generalInfo: z.string().max(20_000).optional() });
export const UpdateOrganizationBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  generalInfo: z.string().max(20_000).optional(),
  defaultTeam: z.string().min(1).nullable().optional(),
  defaultAssistant: z.string().min(1).nullable().optional(),
});
export const OrgParams = z.object({ orgId: z.string().min(1) });
export const OrgMemberParams = OrgParams.extend({ userId: z.string().min(1) });
export const OrgDomainParams = OrgParams.extend({ domainId: z.string().min(1) });
export const InvitationParams = z.object({ invitationId: z.string().min(1, 'is required') });
export const DeletedOrganizationResponse = z.object({ ok: z.literal(true), organization: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });

const Member = z.object({ id: z.string(), email: z.string(), name: z.string().nullable(), avatarUrl: z.string().nullable(), organizationRole: z.enum(['admin', 'member', 'guest']), createdAt: z.string() });
export const ListMembersQuery = PageQuery.extend({ search: z.string().max(200).optional() });
export const ListMembersResponse = z.object({ ok: z.literal(true), members: z.array(Member), ...PageFields });
export const AddMemberBody = z.object({ email: Email });
/** `status: invited` when the person must accept in the hosted app (outside the organization's verified domains); `id` is then the invitation's. */
export const MemberEnvelope = z.object({ ok: z.literal(true), member: Member.omit({ avatarUrl: true }).extend({ status: z.enum(['active', 'invited']) }) });
export const DeletedMemberResponse = z.object({ ok: z.literal(true), member: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });

export const ModelTiersBody = z.object({ chat: Tier.nullable().optional(), task: Tier.nullable().optional() });
export const ModelTiersResponse = z.object({
  ok: z.literal(true),
  modelTiers: z.object({ chat: Tier.nullable(), task: Tier.nullable() }),
  /** What chats and tasks of this organization's users get when they name no tier. */
  effective: z.object({ chat: Tier, task: Tier }),
});
