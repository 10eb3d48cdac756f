import { defineEndpoint, reply } from '@/server/http/endpoint';
import { PageQuery } from '@/server/http/pagination';
import {
  AddMemberBody,
  CreateOrganizationBody,
  DeletedMemberResponse,
  DeletedOrganizationResponse,
  ListMembersQuery,
  ListMembersResponse,
  ListOrganizationsResponse,
  MemberEnvelope,
  ModelTiersBody,
  ModelTiersResponse,
  OrganizationEnvelope,
  OrgDomainParams,
  OrgMemberParams,
  OrgParams,
  UpdateOrganizationBody,
} from './contracts';
import { z } from 'zod';
import { addDomain, AddDomainBody, deleteDomain, DeletedDomainResponse, DomainResponse, listDomains, updateDomain, UpdateDomainBody, verifyDomain } from './domains';
import { addMember, removeMember } from './members';
import { deleteSso, putSso, SsoBody } from './sso';
import { mintScimToken } from '@/server/scim/token';
import { publicBase } from '@/server/channels/providers';
import {
  createOrganization,
  deleteOrganization,
  getModelTiers,
  getOrganization,
  listMembers,
  listOrganizations,
  setModelTiers,
  updateOrganization,
} from './service';

const tags = ['Organizations'];
const base = { tags, auth: 'any' as const };

export const organizationEndpoints = [
  defineEndpoint({ ...base, method: 'GET', path: '/organizations', summary: 'Organizations newest first (a user sees only their own)', query: PageQuery, response: ListOrganizationsResponse, handle: ({ db, actor, query }) => listOrganizations(db, actor, query) }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/organizations',
    summary: 'Create an organization (more than 10 in a minute: 429)',
    body: CreateOrganizationBody,
    response: OrganizationEnvelope,
    status: 201,
    errors: [403, 409],
    handle: async ({ db, actor, body }) => reply(201, await createOrganization(db, actor, body)),
  }),
  defineEndpoint({ ...base, method: 'GET', path: '/organizations/{orgId}', summary: 'An organization', params: OrgParams, response: OrganizationEnvelope, errors: [403, 404], handle: ({ db, actor, params }) => getOrganization(db, actor, params.orgId) }),
  defineEndpoint({
    ...base,
    method: 'PUT',
    path: '/organizations/{orgId}',
    summary: 'Change name, generalInfo, defaultTeam or defaultAssistant',
    params: OrgParams,
    body: UpdateOrganizationBody,
    response: OrganizationEnvelope,
    errors: [403, 404],
    handle: ({ db, actor, params, body }) => updateOrganization(db, actor, params.orgId, body),
  }),
  defineEndpoint({ ...base, method: 'DELETE', path: '/organizations/{orgId}', summary: 'Delete an organization (its users and teams stay)', params: OrgParams, response: DeletedOrganizationResponse, errors: [403, 404], handle: ({ db, actor, params }) => deleteOrganization(db, actor, params.orgId) }),
  defineEndpoint({ ...base, method: 'GET', path: '/organizations/{orgId}/members', summary: 'Members newest first', params: OrgParams, query: ListMembersQuery, response: ListMembersResponse, errors: [403, 404], handle: ({ db, actor, params, query }) => listMembers(db, actor, params.orgId, query) }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/organizations/{orgId}/members',
    summary: "Add a person: directly at the organization's verified domains (or with an account key), otherwise an invitation (status invited)",
    params: OrgParams,
    body: AddMemberBody,
    response: MemberEnvelope,
    status: 201,
    errors: [403, 404, 409],
    handle: async ({ db, actor, params, body }) => reply(201, await addMember(db, actor, params.orgId, body)),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/organizations/{orgId}/members/{userId}',
    summary: 'Remove a user from the organization and its teams (409 for the only admin)',
    params: OrgMemberParams,
    response: DeletedMemberResponse,
    errors: [403, 404, 409],
    handle: ({ db, actor, params }) => removeMember(db, actor, params.orgId, params.userId),
  }),
  defineEndpoint({ ...base, method: 'GET', path: '/organizations/{orgId}/settings/model-tiers', summary: 'Default chat and task model tiers', params: OrgParams, response: ModelTiersResponse, errors: [403, 404], handle: ({ db, actor, params }) => getModelTiers(db, actor, params.orgId) }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/organizations/{orgId}/settings/model-tiers',
    summary: 'Set the default chat and task tiers (low, medium, high, ultra; null inherits)',
    params: OrgParams,
    body: ModelTiersBody,
    response: ModelTiersResponse,
    errors: [403, 404],
    handle: ({ db, actor, params, body }) => setModelTiers(db, actor, params.orgId, body),
  }),
];

export const domainEndpoints = [
  defineEndpoint({ ...base, method: 'GET', path: '/organizations/{orgId}/domains', summary: 'The organization’s domains', params: OrgParams, response: z.object({ ok: z.literal(true), domains: z.array(DomainResponse) }), errors: [403, 404], handle: ({ db, actor, params }) => listDomains(db, actor, params.orgId) }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/organizations/{orgId}/domains',
    summary: 'Add a domain; publish the returned TXT record, then verify',
    params: OrgParams,
    body: AddDomainBody,
    response: z.object({ ok: z.literal(true), domain: DomainResponse }),
    status: 201,
    errors: [403, 404],
    handle: async ({ db, actor, params, body }) => reply(201, await addDomain(db, actor, params.orgId, body)),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/organizations/{orgId}/domains/{domainId}/verify',
    summary: 'Look the TXT record up in DNS (400 while it is not found; lastCheckedAt updated)',
    params: OrgDomainParams,
    response: z.object({ ok: z.literal(true), domain: DomainResponse }),
    errors: [403, 404],
    handle: ({ db, actor, params }) => verifyDomain(db, actor, params.orgId, params.domainId),
  }),
  defineEndpoint({
    ...base,
    method: 'PUT',
    path: '/organizations/{orgId}/domains/{domainId}',
    summary: 'Turn autoJoin on or off (not for domains added by SSO)',
    params: OrgDomainParams,
    body: UpdateDomainBody,
    response: z.object({ ok: z.literal(true), domain: DomainResponse }),
    errors: [403, 404],
    handle: ({ db, actor, params, body }) => updateDomain(db, actor, params.orgId, params.domainId, body),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/organizations/{orgId}/domains/{domainId}',
    summary: 'Remove a domain claim, verified or not (not for domains added by SSO: 400)',
    params: OrgDomainParams,
    response: DeletedDomainResponse,
    errors: [400, 403, 404],
    handle: ({ db, actor, params }) => deleteDomain(db, actor, params.orgId, params.domainId),
  }),
];

export const ssoEndpoints = [
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/organizations/{orgId}/scim/token',
    summary: 'Mint or rotate the organization’s SCIM token (shown once) and turn SCIM on',
    params: OrgParams,
    response: z.object({ ok: z.literal(true), token: z.string(), tokenCreatedAt: z.string(), endpoint: z.string() }),
    status: 201,
    errors: [403, 404],
    handle: async ({ db, actor, params, req }) => reply(201, await mintScimToken(db, actor, params.orgId, publicBase(req.url))),
  }),
  defineEndpoint({
    ...base,
    method: 'PUT',
    path: '/organizations/{orgId}/sso',
    summary: 'Configure SAML SSO: each object sent is merged into the stored configuration (the certificate is never returned)',
    params: OrgParams,
    body: SsoBody,
    response: z.object({ ok: z.literal(true), sso: z.record(z.string(), z.unknown()) }),
    errors: [403, 404],
    handle: ({ db, actor, params, body }) => putSso(db, actor, params.orgId, body),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/organizations/{orgId}/sso',
    summary: 'Clear the SSO configuration, including the SCIM token',
    params: OrgParams,
    response: z.object({ ok: z.literal(true), sso: z.null() }),
    errors: [403, 404],
    handle: ({ db, actor, params }) => deleteSso(db, actor, params.orgId),
  }),
];
