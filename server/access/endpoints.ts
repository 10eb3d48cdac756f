import { defineEndpoint, reply } from '@/server/http/endpoint';
import { createApiKey, deleteApiKey, listApiKeys, me, revokeApiKey } from './api-keys';
import {
  ApiKeyEnvelope,
  CreateApiKeyBody,
  KeyIdParams,
  ListApiKeysQuery,
  ListApiKeysResponse,
  MeResponse,
  OkResponse,
} from './contracts';

const tags = ['Keys'];

export const accessEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/me',
    summary: 'The calling credential: account, organization, user and scopes',
    tags,
    auth: 'any',
    response: MeResponse,
    handle: async ({ actor }) => me(actor),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/api-keys',
    summary: 'List API keys, newest first (prefix only)',
    tags,
    auth: 'any',
    onboardingExempt: true,
    query: ListApiKeysQuery,
    response: ListApiKeysResponse,
    errors: [403],
    handle: ({ db, actor, query, kernel }) => listApiKeys(db, actor, query, kernel.lastUsed),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/api-keys',
    summary: 'Create an API key; the full key is returned once',
    tags,
    auth: 'any',
    body: CreateApiKeyBody,
    response: ApiKeyEnvelope,
    status: 201,
    errors: [400, 403, 404, 428],
    handle: async ({ db, actor, body }) => reply(201, await createApiKey(db, actor, body)),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/api-keys/{keyId}/revoke',
    summary: 'Revoke an API key; the next request with it gets 401',
    tags,
    auth: 'any',
    onboardingExempt: true,
    params: KeyIdParams,
    response: ApiKeyEnvelope,
    errors: [400, 403, 404],
    handle: ({ db, actor, params }) => revokeApiKey(db, actor, params.keyId),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/api-keys/{keyId}',
    summary: 'Delete a revoked API key',
    tags,
    auth: 'any',
    onboardingExempt: true,
    params: KeyIdParams,
    response: OkResponse,
    errors: [400, 403, 404],
    handle: ({ db, actor, params }) => deleteApiKey(db, actor, params.keyId),
  }),
];
