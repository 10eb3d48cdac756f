import { z } from 'zod';
import { modelTiers } from '@/db/schema';

const Tier = z.enum(modelTiers, { message: `must be one of ${modelTiers.join(', ')}` });
const Ids = (what: string) =>
  z
    .array(z.string().trim().min(1, 'must not be empty').max(100), { message: `must be a list of ${what} ids` })
    .max(1000, `must list at most 1000 ${what}s`);

export const SegmentParams = z.object({ segmentId: z.string().min(1).max(100) });

/** POST /model-tier-segments: a name, the defaults (null or absent: says nothing), and its members. */
export const CreateSegmentBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100),
  chat: Tier.nullable().optional(),
  task: Tier.nullable().optional(),
  organizationIds: Ids('organization').optional(),
  teamIds: Ids('team').optional(),
  userIds: Ids('user').optional(),
});

/** PATCH: any field; a member list given replaces the stored one. */
export const UpdateSegmentBody = CreateSegmentBody.partial();

export const Segment = z.object({
  id: z.string(),
  name: z.string(),
  modelTiers: z.object({ chat: Tier.nullable(), task: Tier.nullable() }),
  organizationIds: z.array(z.string()),
  teamIds: z.array(z.string()),
  userIds: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const SegmentEnvelope = z.object({ ok: z.literal(true), segment: Segment });
export const SegmentListResponse = z.object({ ok: z.literal(true), segments: z.array(Segment) });
export const DeletedSegmentResponse = z.object({ ok: z.literal(true), deleted: z.literal(true), id: z.string() });

/** GET/PATCH /settings/model-tiers: the account's own defaults (the console setting). */
export const AccountTiersBody = z.object({ chat: Tier.nullable().optional(), task: Tier.nullable().optional() });
export const AccountTiersResponse = z.object({
  ok: z.literal(true),
  modelTiers: z.object({ chat: Tier.nullable(), task: Tier.nullable() }),
  effective: z.object({ chat: Tier, task: Tier }),
});
