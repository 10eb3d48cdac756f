import { OkResponse } from '@/server/access/contracts';
import { defineEndpoint, reply } from '@/server/http/endpoint';
import { UserEnvelope, UserIdParams } from '@/server/user-record/contracts';
import { presentUser } from '@/server/user-record/present';
import { visibleUser } from '@/server/user-record/access';
import {
  DeletedUserResponse,
  DeprovisionBody,
  DeprovisionResponse,
  ListUsersQuery,
  ListUsersResponse,
  ProvisionUserBody,
  ProvisionUserResponse,
  UpdateUserBody,
} from './contracts';
import { MarkOnboardedBody, UpdateProfileBody } from './profile-contracts';
import { PutSchedulingBody, SchedulingResponse } from './scheduling-contracts';
import { getProfile, markOnboarded, updateProfile } from './profile';
import { provisionUser } from './provision';
import { getScheduling, putScheduling } from './scheduling';
import { deleteUser, deprovisionUser, listUsers, updateUser } from './service';

const tags = ['Users'];

export const userEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/users',
    summary: 'Users newest first (an organization admin or key sees its organization; a user only themself)',
    tags,
    auth: 'any',
    query: ListUsersQuery,
    response: ListUsersResponse,
    handle: ({ db, actor, query }) => listUsers(db, actor, query),
  }),
  defineEndpoint({
    method: 'PUT',
    path: '/users/{userId}',
    summary: 'Change a user (status inactive or suspended blocks every call acting as them)',
    tags,
    auth: 'any',
    params: UserIdParams,
    body: UpdateUserBody,
    response: UserEnvelope,
    errors: [403, 404, 409],
    handle: ({ db, actor, params, body }) => updateUser(db, actor, params.userId, body),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/users/{userId}',
    summary: 'Delete a user (refused for an only organization admin or the owner of a shared team)',
    tags,
    auth: 'any',
    params: UserIdParams,
    response: DeletedUserResponse,
    errors: [400, 403, 404, 409],
    handle: ({ db, actor, params }) => deleteUser(db, actor, params.userId),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/users/deprovision',
    summary: 'Remove a user from a team; a user left with no team is deleted',
    tags,
    auth: 'any',
    body: DeprovisionBody,
    response: DeprovisionResponse,
    errors: [400, 403, 404, 409],
    handle: ({ db, actor, body }) => deprovisionUser(db, actor, body),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/users/provision',
    summary: 'Create or find a user by email and place them on a team (idempotent)',
    tags,
    auth: 'any',
    body: ProvisionUserBody,
    response: ProvisionUserResponse,
    status: 201,
    errors: [400, 403, 404],
    handle: async ({ db, actor, body }) => {
      const out = await provisionUser(db, actor, body);
      return reply(out.created ? 201 : 200, { ok: true as const, ...out });
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/users/{userId}',
    summary: 'A user with their identifiers',
    tags,
    auth: 'any',
    params: UserIdParams,
    response: UserEnvelope,
    errors: [404],
    handle: async ({ db, actor, params }) => ({
      ok: true as const,
      user: await presentUser(db, await visibleUser(db, actor, params.userId), { withIdentifiers: true }),
    }),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/profile',
    summary: "The acting user's profile",
    tags: ['Profile'],
    auth: 'user',
    onboardingExempt: true,
    response: UserEnvelope,
    handle: ({ db, actor }) => getProfile(db, actor),
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/profile',
    summary: "Update the acting user's profile (timezone, names, locale, preferences)",
    tags: ['Profile'],
    auth: 'user',
    onboardingExempt: true,
    body: UpdateProfileBody,
    response: UserEnvelope,
    errors: [400],
    handle: ({ db, actor, body }) => updateProfile(db, actor, body),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/users/{userId}/preferences/scheduling',
    summary: 'Scheduling preferences (working hours)',
    tags: ['Profile'],
    auth: 'any',
    onboardingExempt: true,
    params: UserIdParams,
    response: SchedulingResponse,
    errors: [404],
    handle: ({ db, actor, params }) => getScheduling(db, actor, params.userId),
  }),
  defineEndpoint({
    method: 'PUT',
    path: '/users/{userId}/preferences/scheduling',
    summary: 'Replace scheduling preferences; omitting workingHours keeps the saved hours',
    tags: ['Profile'],
    auth: 'any',
    onboardingExempt: true,
    params: UserIdParams,
    body: PutSchedulingBody,
    response: SchedulingResponse,
    errors: [400, 404],
    handle: ({ db, actor, params, body }) => putScheduling(db, actor, params.userId, body),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/onboarding/mark-onboarded',
    summary: 'Finish setup once a timezone and working hours are saved',
    tags: ['Profile'],
    auth: 'user',
    onboardingExempt: true,
    body: MarkOnboardedBody,
    response: OkResponse,
    errors: [400],
    handle: ({ db, actor }) => markOnboarded(db, actor),
  }),
];
