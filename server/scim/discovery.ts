/** The fixed discovery documents of RFC 7643 §5-7 for what this server supports. */
export const serviceProviderConfig = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  documentationUri: '/docs',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: 200 },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [{ type: 'oauthbearertoken', name: 'Bearer token', description: 'The organization’s SCIM token, minted by an organization admin', primary: true }],
  meta: { resourceType: 'ServiceProviderConfig', location: '/api/scim/v2/ServiceProviderConfig' },
};

export const resourceTypes = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  totalResults: 2,
  Resources: [
    { schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], id: 'User', name: 'User', endpoint: '/Users', schema: 'urn:ietf:params:scim:schemas:core:2.0:User', meta: { resourceType: 'ResourceType', location: '/api/scim/v2/ResourceTypes/User' } },
    { schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], id: 'Group', name: 'Group', endpoint: '/Groups', schema: 'urn:ietf:params:scim:schemas:core:2.0:Group', meta: { resourceType: 'ResourceType', location: '/api/scim/v2/ResourceTypes/Group' } },
  ],
};

const attr = (name: string, type: string, extra: Record<string, unknown> = {}) => ({ name, type, multiValued: false, required: false, mutability: 'readWrite', returned: 'default', uniqueness: 'none', ...extra });

export const schemas = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  totalResults: 2,
  Resources: [
    {
      id: 'urn:ietf:params:scim:schemas:core:2.0:User',
      name: 'User',
      attributes: [
        attr('userName', 'string', { required: true, uniqueness: 'server' }),
        attr('name', 'complex', { subAttributes: [attr('givenName', 'string'), attr('familyName', 'string'), attr('formatted', 'string')] }),
        attr('displayName', 'string'),
        attr('externalId', 'string'),
        attr('active', 'boolean'),
        attr('emails', 'complex', { multiValued: true, mutability: 'readOnly' }),
        attr('groups', 'complex', { multiValued: true, mutability: 'readOnly' }),
      ],
      meta: { resourceType: 'Schema', location: '/api/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User' },
    },
    {
      id: 'urn:ietf:params:scim:schemas:core:2.0:Group',
      name: 'Group',
      attributes: [attr('displayName', 'string', { required: true }), attr('members', 'complex', { multiValued: true })],
      meta: { resourceType: 'Schema', location: '/api/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group' },
    },
  ],
};
