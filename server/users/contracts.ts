import { z } from 'zod';
import { BrowserUrl } from '@/server/http/browser-url';
import { PageFields, PageQuery } from '@/server/http/pagination';
import { Email, UserResponse } from '@/server/user-record/contracts';
import { isTimezone } from './profile-contracts';

export const ListUsersQuery = PageQuery.extend({
  status: z.enum(['active', 'inactive', 'suspended']).optional(),
  email: z.string().max(320).optional(),
  externalId: z.string().max(200).optional(),
  organizationId: z.string().max(100).optional(),
  search: z.string().max(200).optional(),
});
export const ListUsersResponse = z.object({ ok: z.literal(true), users: z.array(UserResponse), ...PageFields });

export const UpdateUserBody = z.object({
  name: z.string().trim().max(200).nullable().optional(),
  firstName: z.string().trim().max(200).optional(),
  lastName: z.string().trim().max(200).optional(),
  avatar: BrowserUrl.nullable().optional(),
  timezone: z.string().refine(isTimezone, 'must be an IANA time zone such as Europe/Paris').optional(),
  locale: z.string().trim().min(2).max(35).optional(),
  status: z.enum(['active', 'inactive', 'suspended']).optional(),
  externalId: z.string().trim().min(1).max(200).nullable().optional(),
  organization: z.string().min(1).nullable().optional(),
  organizationRole: z.enum(['admin', 'member', 'guest']).optional(),
  assistantEmail: z.string().trim().toLowerCase().nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const DeprovisionBody = z.object({ email: Email, teamId: z.string().min(1, 'is required') });
export const DeprovisionResponse = z.object({
  ok: z.literal(true),
  deleted: z.boolean(),
  userDeleted: z.boolean(),
  userId: z.string().nullable(),
  message: z.string(),
});
export const DeletedUserResponse = z.object({ ok: z.literal(true), user: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });

export const ProvisionUserBody = z.object({
  email: Email,
  firstName: z.string().trim().max(200).optional(),
  lastName: z.string().trim().max(200).optional(),
  teamId: z.string().min(1).optional(),
  id: z.string().optional(),
});

export const ProvisionUserResponse = z.object({
  ok: z.literal(true),
  user: UserResponse,
  teamId: z.string().nullable(),
  created: z.boolean(),
  addedToTeam: z.boolean(),
  alreadyMember: z.boolean(),
  joinSkipped: z.boolean(),
});
