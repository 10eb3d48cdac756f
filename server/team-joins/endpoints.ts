import { defineEndpoint, reply } from '@/server/http/endpoint';
import { CreateJoinRequestBody, JoinRequestEnvelope, JoinRequestParams, ListJoinRequestsQuery, ListJoinRequestsResponse } from './contracts';
import { TeamParams } from '@/server/teams/contracts';
import { decideJoinRequest, listJoinRequests, requestToJoin, withdrawJoinRequest } from './service';

const base = { tags: ['Teams'], auth: 'any' as const };

/** Join requests: not in the spec's endpoint list; the flow its `adminApprovalRequired` names (docs/decisions.md). */
export const teamJoinEndpoints = [
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/teams/{teamId}/join-requests',
    summary: 'Requests to join the team (team admins): pending ones unless status names another',
    params: TeamParams,
    query: ListJoinRequestsQuery,
    response: ListJoinRequestsResponse,
    errors: [403, 404],
    handle: ({ db, actor, params, query }) => listJoinRequests(db, actor, params.teamId, query),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/join-requests',
    summary:
      'Ask to join a team of your organization: joined at once (approved) when the team asks no approval, otherwise pending until a team admin decides; asking again returns the pending request (200)',
    params: TeamParams,
    body: CreateJoinRequestBody,
    response: JoinRequestEnvelope,
    status: 201,
    // 200: the person's request was already pending (the same request).
    errors: [200, 403, 404, 409],
    handle: async ({ db, actor, params, body }) => {
      const out = await requestToJoin(db, actor, params.teamId, body);
      return reply(out.status, out.body);
    },
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/join-requests/{requestId}/approve',
    summary: 'Approve a pending request (team admin): the person joins the team, their other memberships archived',
    params: JoinRequestParams,
    response: JoinRequestEnvelope,
    errors: [403, 404, 409],
    handle: ({ db, actor, params }) => decideJoinRequest(db, actor, params.teamId, params.requestId, 'approve'),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/join-requests/{requestId}/decline',
    summary: 'Decline a pending request (team admin)',
    params: JoinRequestParams,
    response: JoinRequestEnvelope,
    errors: [403, 404, 409],
    handle: ({ db, actor, params }) => decideJoinRequest(db, actor, params.teamId, params.requestId, 'decline'),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/teams/{teamId}/join-requests/{requestId}',
    summary: 'Withdraw your own pending request',
    params: JoinRequestParams,
    response: JoinRequestEnvelope,
    errors: [404, 409],
    handle: ({ db, actor, params }) => withdrawJoinRequest(db, actor, params.teamId, params.requestId),
  }),
];
