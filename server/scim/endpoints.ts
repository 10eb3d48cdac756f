import { defineEndpoint, reply } from '@/server/http/endpoint';
import { TextReply } from '@/server/http/reply';
import type { ApiRequest } from '@/server/http/request';
import { publicBase } from '@/server/channels/providers';
import { OrgParams } from '@/server/organizations/contracts';
import { ScimBody, ScimIdParams, ScimListQuery, ScimResourceQuery, ScimResponse, ScimTokenResponse } from './contracts';
import { resourceType, resourceTypes, schema, schemas, serviceProviderConfig } from './discovery';
import { scimErrorDialect, scimHandle, scimJson } from './errors';
import { createScimGroup, deleteScimGroup, getScimGroup, listScimGroups, patchScimGroup, replaceScimGroup } from './groups';
import { project } from './projection';
import { readListQuery, readSelection } from './query';
import { GROUP, USER, type ResourceSchema } from './schema';
import { mintScimToken, type ScimCaller, type ScimScope } from './token';
import { createScimUser, deleteScimUser, getScimUser, listScimUsers, patchScimUser, replaceScimUser } from './users';
import { wireUser } from './enterprise';
import { noteRequest, requestOf } from '@/server/audit/request-meta';

const tags = ['SCIM 2.0'];
const base = { tags, auth: 'scim' as const, raw: true, response: ScimResponse };
const discovery = { ...base, auth: 'none' as const };

const empty = () => new TextReply(204, {}, '');
/** …/api/scim/v2 on the public origin: what the token's `endpoint` names and every `meta.location` starts with. */
const scimBase = (req: ApiRequest) => `${publicBase(req.url)}/api/scim/v2`;
const scope = (scim: ScimCaller, req: ApiRequest): ScimScope => {
  const scoped = { ...scim, base: scimBase(req) };
  // The kernel noted the request (address, user agent, id) for the caller object: the audit finds it on the scoped one too.
  const meta = requestOf(scim);
  if (meta) noteRequest(scoped, meta);
  return scoped;
};

type Shown = Record<string, unknown> & { meta: { location: string } };
/** One resource, as `attributes` / `excludedAttributes` ask; a creation also says where it lives (RFC 7644 §3.3). */
function resource(status: number, schemaOf: ResourceSchema, shown: Shown, query: Parameters<typeof readSelection>[0]) {
  const headers: Record<string, string> = status === 201 ? { Location: shown.meta.location } : {};
  const projected = project(schemaOf, shown, readSelection(query));
  // A user's extensions go out under their URNs (enterprise.ts).
  return scimJson(status, schemaOf === USER ? wireUser(projected) : projected, headers);
}

const endpoints = [
  defineEndpoint({
    tags: ['Organizations'],
    auth: 'any',
    method: 'POST',
    path: '/organizations/{orgId}/scim/token',
    summary: 'Mint or rotate the organization’s SCIM token (shown once) and turn SCIM on',
    params: OrgParams,
    response: ScimTokenResponse,
    status: 201,
    errors: [403, 404],
    handle: async ({ db, actor, params, req }) => reply(201, await mintScimToken(db, actor, params.orgId, publicBase(req.url))),
  }),
  defineEndpoint({
    ...discovery,
    method: 'GET',
    path: '/scim/v2/ServiceProviderConfig',
    summary: 'SCIM service provider configuration',
    handle: async ({ req }) => scimJson(200, serviceProviderConfig(scimBase(req))),
  }),
  defineEndpoint({
    ...discovery,
    method: 'GET',
    path: '/scim/v2/ResourceTypes',
    summary: 'SCIM resource types',
    handle: async ({ req }) => scimJson(200, resourceTypes(scimBase(req))),
  }),
  defineEndpoint({
    ...discovery,
    method: 'GET',
    path: '/scim/v2/ResourceTypes/{id}',
    summary: 'SCIM: one resource type (User or Group)',
    params: ScimIdParams,
    handle: ({ req, params }) => scimHandle(async () => scimJson(200, resourceType(scimBase(req), params.id))),
  }),
  defineEndpoint({
    ...discovery,
    method: 'GET',
    path: '/scim/v2/Schemas',
    summary: 'SCIM schemas: each attribute’s mutability, caseExact and returned',
    handle: async ({ req }) => scimJson(200, schemas(scimBase(req))),
  }),
  defineEndpoint({
    ...discovery,
    method: 'GET',
    path: '/scim/v2/Schemas/{id}',
    summary: 'SCIM: one schema, by its URN',
    params: ScimIdParams,
    handle: ({ req, params }) => scimHandle(async () => scimJson(200, schema(scimBase(req), params.id))),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/scim/v2/Users',
    summary: 'SCIM: the organization’s users (filter, paging, attributes, excludedAttributes)',
    query: ScimListQuery,
    handle: ({ db, scim, req, query }) => scimHandle(async () => scimJson(200, await listScimUsers(db, scope(scim, req), readListQuery(query)))),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/scim/v2/Users',
    summary: 'SCIM: create a user',
    query: ScimResourceQuery,
    body: ScimBody,
    handle: ({ db, scim, req, query, body }) => scimHandle(async () => resource(201, USER, await createScimUser(db, scope(scim, req), body), query)),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/scim/v2/Users/{id}',
    summary: 'SCIM: a user',
    params: ScimIdParams,
    query: ScimResourceQuery,
    handle: ({ db, scim, req, params, query }) => scimHandle(async () => resource(200, USER, await getScimUser(db, scope(scim, req), params.id), query)),
  }),
  defineEndpoint({
    ...base,
    method: 'PUT',
    path: '/scim/v2/Users/{id}',
    summary: 'SCIM: replace a user',
    params: ScimIdParams,
    query: ScimResourceQuery,
    body: ScimBody,
    handle: ({ db, scim, req, params, query, body }) => scimHandle(async () => resource(200, USER, await replaceScimUser(db, scope(scim, req), params.id, body), query)),
  }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/scim/v2/Users/{id}',
    summary: 'SCIM: patch a user (active=false deactivates)',
    params: ScimIdParams,
    query: ScimResourceQuery,
    body: ScimBody,
    handle: ({ db, scim, req, params, query, body }) => scimHandle(async () => resource(200, USER, await patchScimUser(db, scope(scim, req), params.id, body), query)),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/scim/v2/Users/{id}',
    summary: 'SCIM: deprovision a user',
    params: ScimIdParams,
    handle: ({ db, scim, params }) => scimHandle(async () => (await deleteScimUser(db, scim, params.id), empty())),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/scim/v2/Groups',
    summary: 'SCIM: the organization’s teams as groups (filter, paging, attributes, excludedAttributes)',
    query: ScimListQuery,
    handle: ({ db, scim, req, query }) => scimHandle(async () => scimJson(200, await listScimGroups(db, scope(scim, req), readListQuery(query)))),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/scim/v2/Groups',
    summary: 'SCIM: create a group (a team) with its members',
    query: ScimResourceQuery,
    body: ScimBody,
    handle: ({ db, scim, req, query, body }) => scimHandle(async () => resource(201, GROUP, await createScimGroup(db, scope(scim, req), body), query)),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/scim/v2/Groups/{id}',
    summary: 'SCIM: a group',
    params: ScimIdParams,
    query: ScimResourceQuery,
    handle: ({ db, scim, req, params, query }) =>
      scimHandle(async () => resource(200, GROUP, await getScimGroup(db, scope(scim, req), params.id, readSelection(query)), query)),
  }),
  defineEndpoint({
    ...base,
    method: 'PUT',
    path: '/scim/v2/Groups/{id}',
    summary: 'SCIM: replace a group and its members',
    params: ScimIdParams,
    query: ScimResourceQuery,
    body: ScimBody,
    handle: ({ db, scim, req, params, query, body }) => scimHandle(async () => resource(200, GROUP, await replaceScimGroup(db, scope(scim, req), params.id, body), query)),
  }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/scim/v2/Groups/{id}',
    summary: 'SCIM: patch a group (displayName; members add, remove, replace)',
    params: ScimIdParams,
    query: ScimResourceQuery,
    body: ScimBody,
    handle: ({ db, scim, req, params, query, body }) => scimHandle(async () => resource(200, GROUP, await patchScimGroup(db, scope(scim, req), params.id, body), query)),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/scim/v2/Groups/{id}',
    summary: 'SCIM: delete a group',
    params: ScimIdParams,
    handle: ({ db, scim, params }) => scimHandle(async () => (await deleteScimGroup(db, scim, params.id), empty())),
  }),
];

// Everything under /scim/v2 answers errors in SCIM's shape, the kernel's own answers included.
export const scimEndpoints = endpoints.map((ep) => (ep.path.startsWith('/scim/v2/') ? { ...ep, errorDialect: scimErrorDialect } : ep));
