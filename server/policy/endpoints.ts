import { defineEndpoint } from '@/server/http/endpoint';
import { TeamParams } from '@/server/teams/contracts';
import {
  DeletedExceptionResponse,
  ExceptionBody,
  ExceptionEnvelope,
  ExceptionListResponse,
  ExceptionParams,
  MatrixPatchBody,
  SupervisionMatrixResponse,
  UserIdParams,
} from './autonomy-contracts';
import {
  createRecipientException,
  deleteRecipientException,
  getSupervisionMatrix,
  listRecipientExceptions,
  patchSupervisionMatrix,
  resetSupervisionMatrix,
} from './autonomy';
import { PolicyPatchBody, PolicyResponse, PresetBody } from './contracts';
import { applySecurityPreset, getTeamPolicy, patchTeamPolicy } from './team-policy';

const base = { tags: ['Team policy'], auth: 'any' as const, params: TeamParams, response: PolicyResponse, errors: [403, 404] };
const autonomy = { tags: ['Autonomy'], auth: 'any' as const, params: UserIdParams };
const matrixPath = '/users/{userId}/preferences/supervision/matrix';
const exceptionsPath = '/users/{userId}/preferences/supervision/exceptions';

const autonomyEndpoints = [
  defineEndpoint({
    ...autonomy,
    method: 'GET',
    path: matrixPath,
    summary:
      'The supervision matrix: per action type the mode in force (never null: the user’s own value, else team, organization, account, else the platform default, raised to any lock; `source` names which), with the cells the account (parentLockedCells), organization and teams lock and their pinned values',
    response: SupervisionMatrixResponse,
    errors: [404],
    handle: ({ db, actor, params }) => getSupervisionMatrix(db, actor, params.userId),
  }),
  defineEndpoint({
    ...autonomy,
    method: 'PATCH',
    path: matrixPath,
    summary:
      'Merge cells into the user’s own matrix (a field null, or a whole cell null, inherits again; time-boxed needs a window). All or nothing: 403 naming each cell a team, organization or account lock would see loosened',
    body: MatrixPatchBody,
    response: SupervisionMatrixResponse,
    errors: [400, 403, 404],
    handle: ({ db, actor, params, body }) => patchSupervisionMatrix(db, actor, params.userId, body),
  }),
  defineEndpoint({
    ...autonomy,
    method: 'PUT',
    path: `${matrixPath}/reset`,
    summary: 'Clear the user’s own cells and remove every recipient exception; each cell then follows the team, organization or account, else the platform default',
    response: SupervisionMatrixResponse,
    errors: [404],
    handle: ({ db, actor, params }) => resetSupervisionMatrix(db, actor, params.userId),
  }),
  defineEndpoint({
    ...autonomy,
    method: 'POST',
    path: exceptionsPath,
    summary:
      'Add a recipient exception: a mode for one address (email or E.164 phone) or one exact domain (not its subdomains), for the listed action types. It wins over the user’s cell, never over a lock (403 when it would relax a locked cell); with several recipients it relaxes only when it matches all of them, and tightens when it matches any. At most 200 per user',
    body: ExceptionBody,
    response: ExceptionEnvelope,
    status: 201,
    errors: [400, 403, 404],
    handle: ({ db, actor, params, body }) => createRecipientException(db, actor, params.userId, body),
  }),
  defineEndpoint({
    ...autonomy,
    method: 'GET',
    path: exceptionsPath,
    summary: 'The user’s recipient exceptions, newest first',
    response: ExceptionListResponse,
    errors: [404],
    handle: ({ db, actor, params }) => listRecipientExceptions(db, actor, params.userId),
  }),
  defineEndpoint({
    ...autonomy,
    method: 'DELETE',
    path: `${exceptionsPath}/{exceptionId}`,
    summary: 'Remove one recipient exception; another user’s is 404',
    params: ExceptionParams,
    response: DeletedExceptionResponse,
    errors: [404],
    handle: ({ db, actor, params }) => deleteRecipientException(db, actor, params.userId, params.exceptionId),
  }),
];

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
    summary: 'Change switches (on, off, null) with locks, handoff domains and approval overrides (a team’s approval cells bind its members’ supervision matrix)',
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
  ...autonomyEndpoints,
];
