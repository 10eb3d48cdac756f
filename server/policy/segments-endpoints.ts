import { defineEndpoint, reply } from '@/server/http/endpoint';
import {
  AccountTiersBody,
  AccountTiersResponse,
  CreateSegmentBody,
  DeletedSegmentResponse,
  SegmentEnvelope,
  SegmentListResponse,
  SegmentParams,
  UpdateSegmentBody,
} from './segments-contracts';
import { createSegment, deleteSegment, getAccountTiers, getSegment, listSegments, setAccountTiers, updateSegment } from './segments';

const base = { tags: ['Model tiers'], auth: 'account' as const, errors: [400, 403] };

/** Model-tier segments and the account's own default tiers (docs/model-tiers.md): account-wide keys only. */
export const segmentEndpoints = [
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/model-tier-segments',
    summary: 'Model-tier segments: named sets of organizations, teams or users with their own chat and task defaults',
    response: SegmentListResponse,
    handle: ({ db, actor }) => listSegments(db, actor),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/model-tier-segments',
    summary: 'Create a segment (its defaults apply to chats and tasks the agent creates for its members)',
    body: CreateSegmentBody,
    response: SegmentEnvelope,
    status: 201,
    errors: [400, 403, 409],
    handle: async ({ db, actor, body }) => reply(201, await createSegment(db, actor, body)),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/model-tier-segments/{segmentId}',
    summary: 'One segment',
    params: SegmentParams,
    response: SegmentEnvelope,
    errors: [403, 404],
    handle: ({ db, actor, params }) => getSegment(db, actor, params.segmentId),
  }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/model-tier-segments/{segmentId}',
    summary: 'Change a segment: name, defaults (null clears one), member lists (a list given replaces the stored one)',
    params: SegmentParams,
    body: UpdateSegmentBody,
    response: SegmentEnvelope,
    errors: [400, 403, 404, 409],
    handle: ({ db, actor, params, body }) => updateSegment(db, actor, params.segmentId, body),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/model-tier-segments/{segmentId}',
    summary: 'Delete a segment',
    params: SegmentParams,
    response: DeletedSegmentResponse,
    errors: [403, 404],
    handle: ({ db, actor, params }) => deleteSegment(db, actor, params.segmentId),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/settings/model-tiers',
    summary: 'The account’s default chat and task tiers (after a chat’s or task’s own tier and its organization’s)',
    response: AccountTiersResponse,
    handle: ({ db, actor }) => getAccountTiers(db, actor),
  }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/settings/model-tiers',
    summary: 'Set the account’s default chat and task tiers (low, medium, high, ultra; null clears)',
    body: AccountTiersBody,
    response: AccountTiersResponse,
    handle: ({ db, actor, body }) => setAccountTiers(db, actor, body),
  }),
];
