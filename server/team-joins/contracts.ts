import { z } from 'zod';
import { teamJoinRequestStatuses } from '@/db/schema';
import { PageFields, PageQuery } from '@/server/http/pagination';
import { TeamParams } from '@/server/teams/contracts';

export const JoinRequestResponse = z.object({
  id: z.string(),
  team: z.object({ id: z.string(), name: z.string() }),
  user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
  status: z.enum(teamJoinRequestStatuses).describe('pending until a team admin approves or declines it, or the person withdraws it; approved at once when the team asks no approval'),
  message: z.string(),
  decidedBy: z.string().nullable().describe('The team admin who approved or declined; null otherwise'),
  decidedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const JoinRequestEnvelope = z.object({ ok: z.literal(true), joinRequest: JoinRequestResponse });
export const ListJoinRequestsQuery = PageQuery.extend({ status: z.enum(teamJoinRequestStatuses).default('pending') });
export const ListJoinRequestsResponse = z.object({ ok: z.literal(true), joinRequests: z.array(JoinRequestResponse), ...PageFields });
export const CreateJoinRequestBody = z.object({ message: z.string().trim().max(500).optional().describe('A note for the team’s admins') });
export const JoinRequestParams = TeamParams.extend({ requestId: z.string().min(1) });
