import { z } from 'zod';
import type { Db } from '@/db/client';
import { users } from '@/db/schema';
import { and, eq } from 'drizzle-orm';
import { defineEndpoint } from '@/server/http/endpoint';
import { TextReply } from '@/server/http/kernel';
import { notFound } from '@/server/http/errors';
import { removeUser } from '@/server/users/admin';
import { assertNotOnlyOrgAdmin, assertOwnsNoSharedTeam } from '@/server/users/refusals';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery';
import { scimHandle, scimJson } from './errors';
import { createScimGroup, deleteScimGroup, getScimGroup, listScimGroups, patchScimGroup, replaceScimGroup } from './groups';
import type { ScimCaller } from './token';
import { createScimUser, getScimUser, listScimUsers, patchScimUser, replaceScimUser } from './users';

const base = { tags: ['SCIM 2.0'], auth: 'scim' as const, raw: true, response: z.unknown() };
const ListQuery = z.object({
  filter: z.string().max(1000).optional(),
  startIndex: z.coerce.number().int().min(1).default(1),
  count: z.coerce.number().int().min(0).default(100).transform((n) => Math.min(n, 200)),
});
const Id = z.object({ id: z.string().min(1) });
const Body = z.unknown();

/** Deleting through SCIM deprovisions: the user is deleted, after the same refusals as DELETE /users. */
async function deleteScimUser(db: Db, caller: ScimCaller, id: string) {
  const [u] = await db.select().from(users).where(and(eq(users.id, id), eq(users.organizationId, caller.organizationId)));
  if (!u) throw notFound('User');
  await db.transaction(async (tx) => {
    await assertNotOnlyOrgAdmin(tx, u);
    await assertOwnsNoSharedTeam(tx, u);
    await removeUser(tx as unknown as Db, u);
  });
}

const empty = () => new TextReply(204, {}, '');

export const scimEndpoints = [
  defineEndpoint({ ...base, auth: 'none', method: 'GET', path: '/scim/v2/ServiceProviderConfig', summary: 'SCIM service provider configuration', handle: async () => scimJson(200, serviceProviderConfig) }),
  defineEndpoint({ ...base, auth: 'none', method: 'GET', path: '/scim/v2/ResourceTypes', summary: 'SCIM resource types', handle: async () => scimJson(200, resourceTypes) }),
  defineEndpoint({ ...base, auth: 'none', method: 'GET', path: '/scim/v2/Schemas', summary: 'SCIM schemas', handle: async () => scimJson(200, schemas) }),
  defineEndpoint({ ...base, method: 'GET', path: '/scim/v2/Users', summary: 'SCIM: the organization’s users (filter supported)', query: ListQuery, handle: ({ db, scim, query }) => scimHandle(async () => scimJson(200, await listScimUsers(db, scim, query))) }),
  defineEndpoint({ ...base, method: 'POST', path: '/scim/v2/Users', summary: 'SCIM: create a user', body: Body, handle: ({ db, scim, body }) => scimHandle(async () => scimJson(201, await createScimUser(db, scim, body))) }),
  defineEndpoint({ ...base, method: 'GET', path: '/scim/v2/Users/{id}', summary: 'SCIM: a user', params: Id, handle: ({ db, scim, params }) => scimHandle(async () => scimJson(200, await getScimUser(db, scim, params.id))) }),
  defineEndpoint({ ...base, method: 'PUT', path: '/scim/v2/Users/{id}', summary: 'SCIM: replace a user', params: Id, body: Body, handle: ({ db, scim, params, body }) => scimHandle(async () => scimJson(200, await replaceScimUser(db, scim, params.id, body))) }),
  defineEndpoint({ ...base, method: 'PATCH', path: '/scim/v2/Users/{id}', summary: 'SCIM: patch a user (active=false deactivates)', params: Id, body: Body, handle: ({ db, scim, params, body }) => scimHandle(async () => scimJson(200, await patchScimUser(db, scim, params.id, body))) }),
  defineEndpoint({ ...base, method: 'DELETE', path: '/scim/v2/Users/{id}', summary: 'SCIM: deprovision a user', params: Id, handle: ({ db, scim, params }) => scimHandle(async () => (await deleteScimUser(db, scim, params.id), empty())) }),
  defineEndpoint({ ...base, method: 'GET', path: '/scim/v2/Groups', summary: 'SCIM: the organization’s teams as groups', query: ListQuery, handle: ({ db, scim, query }) => scimHandle(async () => scimJson(200, await listScimGroups(db, scim, query))) }),
  defineEndpoint({ ...base, method: 'POST', path: '/scim/v2/Groups', summary: 'SCIM: create a group (a team) with its members', body: Body, handle: ({ db, scim, body }) => scimHandle(async () => scimJson(201, await createScimGroup(db, scim, body))) }),
  defineEndpoint({ ...base, method: 'GET', path: '/scim/v2/Groups/{id}', summary: 'SCIM: a group', params: Id, handle: ({ db, scim, params }) => scimHandle(async () => scimJson(200, await getScimGroup(db, scim, params.id))) }),
  defineEndpoint({ ...base, method: 'PUT', path: '/scim/v2/Groups/{id}', summary: 'SCIM: replace a group and its members', params: Id, body: Body, handle: ({ db, scim, params, body }) => scimHandle(async () => scimJson(200, await replaceScimGroup(db, scim, params.id, body))) }),
  defineEndpoint({ ...base, method: 'PATCH', path: '/scim/v2/Groups/{id}', summary: 'SCIM: patch a group (members add/remove)', params: Id, body: Body, handle: ({ db, scim, params, body }) => scimHandle(async () => scimJson(200, await patchScimGroup(db, scim, params.id, body))) }),
  defineEndpoint({ ...base, method: 'DELETE', path: '/scim/v2/Groups/{id}', summary: 'SCIM: delete a group', params: Id, handle: ({ db, scim, params }) => scimHandle(async () => (await deleteScimGroup(db, scim, params.id), empty())) }),
];
