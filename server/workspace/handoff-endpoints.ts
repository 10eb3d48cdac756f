import { z } from 'zod';
import { defineEndpoint } from '@/server/http/endpoint';
import { invalidFields } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import {
  ActiveResponse,
  ControlBody,
  DeferBody,
  DeferResponse,
  HandoffParams,
  LaunchResponse,
  ResolveBody,
  ResolveResponse,
  SessionResponse,
  TaskIdResponse,
} from './handoffs/contracts';
import {
  completeHandoff,
  deferHandoff,
  declineHandoff,
  launchHandoff,
  listActiveHandoffs,
  openSession,
  resolveHandoffs,
} from './handoffs/service';

const tags = ['Workspace'];
// Level `any`: a caller not acting as a user gets the spec's 403 from the service (the `user` level would answer 401).
const asUser = { tags, auth: 'any' as const, needsPerson: true };

/**
 * The control generation the caller read, from the body's `generation` or `If-Match: "<n>"`
 * (either; both must agree). Absent: the call acts on whatever is current.
 */
function generationOf(req: ApiRequest, body: { generation?: number } | undefined): number | undefined {
  const header = req.headers.get('if-match');
  if (header === null) return body?.generation;
  const m = /^\s*(?:W\/)?"?(\d{1,10})"?\s*$/.exec(header);
  if (!m) throw invalidFields([{ field: 'If-Match', problem: 'must be the control generation, e.g. "3"' }]);
  const n = Number(m[1]);
  if (body?.generation !== undefined && body.generation !== n) throw invalidFields([{ field: 'generation', problem: 'differs from If-Match' }]);
  return n;
}

export const handoffEndpoints = [
  defineEndpoint({
    ...asUser,
    method: 'GET',
    path: '/workspace/handoff/active',
    summary: 'Every open handoff of the user (oldest first), the newest, and who holds the browser (control)',
    response: ActiveResponse,
    errors: [403],
    handle: ({ db, actor }) => listActiveHandoffs(db, actor),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/workspace/handoff/launch',
    summary: 'Open a browser session yourself: the workspace starts in the background; poll the active list until ready, then call session',
    body: z.object({}).loose().optional(),
    response: LaunchResponse,
    errors: [403],
    handle: ({ db, actor }) => launchHandoff(db, actor),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/workspace/handoff/{handoffId}/session',
    summary: 'A new single-use live-view link for this handoff (valid only for you); you hold the browser until you complete, defer or decline',
    params: HandoffParams,
    body: ControlBody.optional(),
    response: SessionResponse,
    errors: [400, 403, 404, 409],
    handle: ({ db, actor, params, body, req }) => openSession(db, actor, params.handoffId, generationOf(req, body)),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/workspace/handoff/{handoffId}/complete',
    summary: 'Done: control returns to the assistant and the waiting task resumes',
    params: HandoffParams,
    body: ControlBody.optional(),
    response: TaskIdResponse,
    errors: [400, 403, 404, 409],
    handle: ({ db, actor, params, body, req }) => completeHandoff(db, actor, params.handoffId, generationOf(req, body)),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/workspace/handoff/{handoffId}/defer',
    summary: 'Later: the browser returns to the assistant with your message and, optionally, when to ask again (deferMinutes up to 20160)',
    params: HandoffParams,
    body: DeferBody,
    response: DeferResponse,
    errors: [400, 403, 404, 409],
    handle: ({ db, actor, params, body, req }) => deferHandoff(db, actor, params.handoffId, body, generationOf(req, body)),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/workspace/handoff/{handoffId}/decline',
    summary: 'No: the assistant finds another way or reports it cannot continue, and does not ask again for this task for a while',
    params: HandoffParams,
    body: ControlBody.optional(),
    response: TaskIdResponse,
    errors: [400, 403, 404, 409],
    handle: ({ db, actor, params, body, req }) => declineHandoff(db, actor, params.handoffId, generationOf(req, body)),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/workspace/handoff/resolve',
    summary: 'Answer up to 50 handoffs at once (completed, declined, or pending to leave open); ids that are not yours are skipped',
    body: ResolveBody,
    response: ResolveResponse,
    errors: [400, 403, 409],
    handle: ({ db, actor, body, req }) => resolveHandoffs(db, actor, { ...body, generation: generationOf(req, body) }),
  }),
];
