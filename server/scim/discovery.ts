import { notFound } from '@/server/http/errors';
import { EXTENSION_SCHEMAS, RESOURCE_SCHEMAS, type Attribute, type ResourceSchema } from './schema';

/**
 * The discovery documents of RFC 7643 §5-7 for what this server supports. `base` is the SCIM
 * base URL (…/api/scim/v2): every `meta.location` is a URL a client can GET.
 */

const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const listOf = (resources: unknown[]) => ({ schemas: [LIST], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources });

export const serviceProviderConfig = (base: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  documentationUri: `${base.replace(/\/api\/scim\/v2$/, '')}/docs`,
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: 200 },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Bearer token',
      description: 'The organization’s SCIM token, minted by an organization admin',
      specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

const resourceTypeOf = (base: string, s: ResourceSchema) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
  id: s.name,
  name: s.name,
  description: s.description,
  endpoint: s.endpoint,
  schema: s.id,
  schemaExtensions: EXTENSION_SCHEMAS.filter((e) => e.extends === s.name).map((e) => ({ schema: e.id, required: false })),
  meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${s.name}` },
});

/** An attribute as /Schemas publishes it: the RFC's characteristics, without Steward's own markers. */
function published(a: Attribute): Record<string, unknown> {
  const { common: _common, extension: _extension, subAttributes, ...rest } = a;
  return { ...rest, ...(subAttributes ? { subAttributes: subAttributes.map(published) } : {}) };
}

const schemaOf = (base: string, s: ResourceSchema) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
  id: s.id,
  name: s.name,
  description: s.description,
  // An extension's attributes are published as its own schema, not among the resource's.
  attributes: s.attributes.filter((a) => !a.common && !a.extension).map(published),
  meta: { resourceType: 'Schema', location: `${base}/Schemas/${s.id}` },
});

export const resourceTypes = (base: string) => listOf(RESOURCE_SCHEMAS.map((s) => resourceTypeOf(base, s)));
export const schemas = (base: string) => listOf([...RESOURCE_SCHEMAS, ...EXTENSION_SCHEMAS].map((s) => schemaOf(base, s)));

/** Ids compare case-insensitively: `user` and `URN:…:User` name the same document. */
const byId = (id: string, key: (s: ResourceSchema) => string) => RESOURCE_SCHEMAS.find((s) => key(s).toLowerCase() === id.toLowerCase());

export function resourceType(base: string, id: string) {
  const s = byId(id, (x) => x.name);
  if (!s) throw notFound('ResourceType');
  return resourceTypeOf(base, s);
}

export function schema(base: string, id: string) {
  const s = byId(id, (x) => x.id) ?? EXTENSION_SCHEMAS.find((e) => e.id.toLowerCase() === id.toLowerCase());
  if (!s) throw notFound('Schema');
  return schemaOf(base, s);
}
