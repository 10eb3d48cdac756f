import { z } from 'zod';
import { defineEndpoint, reply } from '@/server/http/endpoint';
import { PageQuery } from '@/server/http/pagination';
import { UserIdParams } from '@/server/users/contracts';
import {
  AssistantEnvelope,
  AssistantParams,
  CheckEmailQuery,
  CreateAssistantBody,
  DeletedAssistantResponse,
  GenerateQuery,
  HireBody,
  ListAssistantsResponse,
  ReleaseQuery,
  RosterParams,
  RosterResponse,
  UpdateAssistantBody,
  UserEnvelope,
} from './contracts';
import { createAndHire, getRoster, hire, makePrimary, release } from './roster';
import { checkEmail, createAssistant, deleteAssistant, generateEmails, getAssistant, listAssistants, updateAssistant } from './service';

const base = { tags: ['Assistants'], auth: 'any' as const };

export const assistantEndpoints = [
  defineEndpoint({ ...base, method: 'GET', path: '/assistants', summary: 'Assistants the caller can see, by scope and name', query: PageQuery.extend({ email: z.string().max(320).optional() }), response: ListAssistantsResponse, handle: ({ db, actor, query }) => listAssistants(db, actor, query) }),
  defineEndpoint({ ...base, method: 'POST', path: '/assistants', summary: 'Create an assistant (account-wide key)', body: CreateAssistantBody, response: AssistantEnvelope, status: 201, errors: [403, 404], handle: async ({ db, actor, body }) => reply(201, await createAssistant(db, actor, body)) }),
  defineEndpoint({ ...base, method: 'GET', path: '/assistants/check-email', summary: 'Whether an address is free', query: CheckEmailQuery, response: z.object({ ok: z.literal(true), available: z.boolean(), email: z.string() }), handle: ({ db, actor, query }) => checkEmail(db, actor, query.slug) }),
  defineEndpoint({ ...base, method: 'GET', path: '/assistants/generate', summary: 'Suggest free addresses for a name', query: GenerateQuery, response: z.object({ ok: z.literal(true), suggestions: z.array(z.string()) }), handle: ({ db, actor, query }) => generateEmails(db, actor, query.name) }),
  defineEndpoint({ ...base, method: 'GET', path: '/assistants/{assistantId}', summary: 'An assistant', params: AssistantParams, response: AssistantEnvelope, errors: [404], handle: ({ db, actor, params }) => getAssistant(db, actor, params.assistantId) }),
  defineEndpoint({ ...base, method: 'PUT', path: '/assistants/{assistantId}', summary: 'Change an assistant', params: AssistantParams, body: UpdateAssistantBody, response: AssistantEnvelope, errors: [403, 404], handle: ({ db, actor, params, body }) => updateAssistant(db, actor, params.assistantId, body) }),
  defineEndpoint({ ...base, method: 'DELETE', path: '/assistants/{assistantId}', summary: 'Delete an assistant and retire its address', params: AssistantParams, response: DeletedAssistantResponse, errors: [403, 404], handle: ({ db, actor, params }) => deleteAssistant(db, actor, params.assistantId) }),
  defineEndpoint({ ...base, method: 'GET', path: '/users/{userId}/assistants', summary: "A user's roster", params: UserIdParams, response: RosterResponse, errors: [404], handle: ({ db, actor, params }) => getRoster(db, actor, params.userId) }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/users/{userId}/assistants',
    summary: 'Create and hire the user’s own assistant (idempotent on name)',
    params: UserIdParams,
    body: HireBody,
    response: AssistantEnvelope,
    status: 201,
    errors: [404],
    handle: async ({ db, actor, params, body }) => {
      const out = await createAndHire(db, actor, params.userId, body);
      return reply(out.created ? 201 : 200, out.body);
    },
  }),
  defineEndpoint({ ...base, method: 'POST', path: '/users/{userId}/assistants/{assistantId}/hire', summary: 'Add a visible assistant to the roster', params: RosterParams, response: UserEnvelope, errors: [403, 404], handle: ({ db, actor, params }) => hire(db, actor, params.userId, params.assistantId) }),
  defineEndpoint({ ...base, method: 'POST', path: '/users/{userId}/assistants/{assistantId}/primary', summary: 'Make an assistant on the roster primary', params: RosterParams, response: UserEnvelope, errors: [403, 404], handle: ({ db, actor, params }) => makePrimary(db, actor, params.userId, params.assistantId) }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/users/{userId}/assistants/{assistantId}',
    summary: 'Release one of the user’s own assistants',
    params: RosterParams,
    query: ReleaseQuery,
    response: DeletedAssistantResponse,
    errors: [403, 404, 409],
    handle: ({ db, actor, params, query }) => release(db, actor, params.userId, params.assistantId, query.transfer),
  }),
];
