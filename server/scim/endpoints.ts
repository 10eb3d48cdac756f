import { defineEndpoint, reply } from '@/server/http/endpoint';
import { TextReply } from '@/server/http/reply';
import { publicBase } from '@/server/channels/providers';
import { OrgParams } from '@/server/organizations/contracts';
import { ScimBody, ScimIdParams, ScimListQuery, ScimResponse, ScimTokenResponse } from './contracts';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery';
import { scimHandle, scimJson } from './errors';
import { createScimGroup, deleteScimGroup, getScimGroup, listScimGroups, patchScimGroup, replaceScimGroup } from './groups';
import { mintScimToken } from './token';
import { createScimUser, deleteScimUser, getScimUser, listScimUsers, patchScimUser, replaceScimUser } from './users';

const tags = ['SCIM 2.0'];
const base = { tags, auth: 'scim' as const, raw: true, response: ScimResponse };
const discovery = { ...base, auth: 'none' as const };

const empty = () => new TextReply(204, {}, '');

export const scimEndpoints = [
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
    handle: async () => scimJson(200, serviceProviderConfig),
  }),
  defineEndpoint({
    ...discovery,
    method: 'GET',
    path: '/scim/v2/ResourceTypes',
    summary: 'SCIM resource types',
    handle: async () => scimJson(200, resourceTypes),
  }),
  defineEndpoint({
    ...discovery,
    method: 'GET',
    path: '/scim/v2/Schemas',
    summary: 'SCIM schemas',
    handle: async () => scimJson(200, schemas),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/scim/v2/Users',
    summary: 'SCIM: the organization’s users (filter supported)',
    query: ScimListQuery,
    handle: ({ db, scim, query }) => scimHandle(async () => scimJson(200, await listScimUsers(db, scim, query))),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/scim/v2/Users',
    summary: 'SCIM: create a user',
    body: ScimBody,
    handle: ({ db, scim, body }) => scimHandle(async () => scimJson(201, await createScimUser(db, scim, body))),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/scim/v2/Users/{id}',
    summary: 'SCIM: a user',
    params: ScimIdParams,
    handle: ({ db, scim, params }) => scimHandle(async () => scimJson(200, await getScimUser(db, scim, params.id))),
  }),
  defineEndpoint({
    ...base,
    method: 'PUT',
    path: '/scim/v2/Users/{id}',
    summary: 'SCIM: replace a user',
    params: ScimIdParams,
    body: ScimBody,
    handle: ({ db, scim, params, body }) => scimHandle(async () => scimJson(200, await replaceScimUser(db, scim, params.id, body))),
  }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/scim/v2/Users/{id}',
    summary: 'SCIM: patch a user (active=false deactivates)',
    params: ScimIdParams,
    body: ScimBody,
    handle: ({ db, scim, params, body }) => scimHandle(async () => scimJson(200, await patchScimUser(db, scim, params.id, body))),
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
    summary: 'SCIM: the organization’s teams as groups',
    query: ScimListQuery,
    handle: ({ db, scim, query }) => scimHandle(async () => scimJson(200, await listScimGroups(db, scim, query))),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/scim/v2/Groups',
    summary: 'SCIM: create a group (a team) with its members',
    body: ScimBody,
    handle: ({ db, scim, body }) => scimHandle(async () => scimJson(201, await createScimGroup(db, scim, body))),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/scim/v2/Groups/{id}',
    summary: 'SCIM: a group',
    params: ScimIdParams,
    handle: ({ db, scim, params }) => scimHandle(async () => scimJson(200, await getScimGroup(db, scim, params.id))),
  }),
  defineEndpoint({
    ...base,
    method: 'PUT',
    path: '/scim/v2/Groups/{id}',
    summary: 'SCIM: replace a group and its members',
    params: ScimIdParams,
    body: ScimBody,
    handle: ({ db, scim, params, body }) => scimHandle(async () => scimJson(200, await replaceScimGroup(db, scim, params.id, body))),
  }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/scim/v2/Groups/{id}',
    summary: 'SCIM: patch a group (members add/remove)',
    params: ScimIdParams,
    body: ScimBody,
    handle: ({ db, scim, params, body }) => scimHandle(async () => scimJson(200, await patchScimGroup(db, scim, params.id, body))),
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
