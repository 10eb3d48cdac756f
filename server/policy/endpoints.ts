import { defineEndpoint } from '@/server/http/endpoint';
import { TeamParams } from '@/server/teams/contracts';
import { PolicyPatchBody, PolicyResponse, PresetBody } from './contracts';
import { applySecurityPreset, getTeamPolicy, patchTeamPolicy } from './team-policy';

const base = { tags: ['Team policy'], auth: 'any' as const, params: TeamParams, response: PolicyResponse, errors: [403, 404] };

export const policyEndpoints = [
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/teams/{teamId}/settings/resource-permissions',
    summary: 'The team’s switches and approval overrides, what the organization locked, and the effective values',
    handle: ({ db, actor, params }) => getTeamPolicy(db, actor, params.teamId),
  }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/teams/{teamId}/settings/resource-permissions',
    summary: 'Change switches (on, off, null) with locks, handoff domains and approval overrides',
    body: PolicyPatchBody,
    handle: ({ db, actor, params, body }) => patchTeamPolicy(db, actor, params.teamId, body),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/settings/security-preset',
    summary: 'Apply the restricted preset',
    body: PresetBody,
    handle: ({ db, actor, params }) => applySecurityPreset(db, actor, params.teamId),
  }),
];
