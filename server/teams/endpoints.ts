import { z } from 'zod';
import { defineEndpoint, reply } from '@/server/http/endpoint';
import {
  AddTeamMemberBody,
  CreateTeamBody,
  DeletedTeamMemberResponse,
  DeletedTeamResponse,
  ListTeamMembersQuery,
  ListTeamMembersResponse,
  ListTeamsQuery,
  ListTeamsResponse,
  MemberEnvelope,
  MemberParams,
  TeamEnvelope,
  TeamParams,
  TransferOwnershipBody,
  UpdateTeamBody,
  UpdateTeamMemberBody,
} from './contracts';
import { addTeamMember, listTeamMembers, removeTeamMember, transferOwnership, updateTeamMember } from './members';
import { createTeam, deleteTeam, getTeam, listTeams, updateTeam } from './service';

const base = { tags: ['Teams'], auth: 'any' as const };

export const teamEndpoints = [
  defineEndpoint({ ...base, method: 'GET', path: '/teams', summary: 'Teams newest first', query: ListTeamsQuery, response: ListTeamsResponse, handle: ({ db, actor, query }) => listTeams(db, actor, query) }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/teams',
    summary: 'Create a team (the user creating it becomes owner; an account key names ownerId)',
    body: CreateTeamBody,
    response: TeamEnvelope,
    status: 201,
    errors: [403, 404],
    handle: async ({ db, actor, body }) => reply(201, await createTeam(db, actor, body)),
  }),
  defineEndpoint({ ...base, method: 'GET', path: '/teams/{teamId}', summary: 'A team', params: TeamParams, response: TeamEnvelope, errors: [404], handle: ({ db, actor, params }) => getTeam(db, actor, params.teamId) }),
  defineEndpoint({ ...base, method: 'PUT', path: '/teams/{teamId}', summary: 'Change a team (team admin)', params: TeamParams, body: UpdateTeamBody, response: TeamEnvelope, errors: [403, 404], handle: ({ db, actor, params, body }) => updateTeam(db, actor, params.teamId, body) }),
  defineEndpoint({ ...base, method: 'DELETE', path: '/teams/{teamId}', summary: 'Delete a team; its members move to other teams', params: TeamParams, response: DeletedTeamResponse, errors: [403, 404], handle: ({ db, actor, params }) => deleteTeam(db, actor, params.teamId) }),
  defineEndpoint({ ...base, method: 'GET', path: '/teams/{teamId}/members', summary: 'Members newest first (archived only with status=archived)', params: TeamParams, query: ListTeamMembersQuery, response: ListTeamMembersResponse, errors: [404], handle: ({ db, actor, params, query }) => listTeamMembers(db, actor, params.teamId, query) }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/members',
    summary: 'Add a user (their other memberships are archived)',
    params: TeamParams,
    body: AddTeamMemberBody,
    response: MemberEnvelope,
    status: 201,
    errors: [403, 404],
    handle: async ({ db, actor, params, body }) => reply(201, await addTeamMember(db, actor, params.teamId, body)),
  }),
  defineEndpoint({ ...base, method: 'PUT', path: '/teams/{teamId}/members/{memberId}', summary: 'Change a member’s role or status', params: MemberParams, body: UpdateTeamMemberBody, response: MemberEnvelope, errors: [403, 404], handle: ({ db, actor, params, body }) => updateTeamMember(db, actor, params.teamId, params.memberId, body) }),
  defineEndpoint({ ...base, method: 'DELETE', path: '/teams/{teamId}/members/{memberId}', summary: 'Remove a member', params: MemberParams, response: DeletedTeamMemberResponse, errors: [403, 404], handle: ({ db, actor, params }) => removeTeamMember(db, actor, params.teamId, params.memberId) }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/transfer-ownership',
    summary: 'Hand ownership to an active member (called as the owner)',
    params: TeamParams,
    body: TransferOwnershipBody,
    response: z.object({ ok: z.literal(true), team: z.object({ id: z.string(), owner: z.string() }) }),
    errors: [400, 403, 404],
    handle: ({ db, actor, params, body }) => transferOwnership(db, actor, params.teamId, body.newOwnerId),
  }),
];
