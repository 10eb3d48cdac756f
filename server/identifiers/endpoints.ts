import { defineEndpoint, reply } from '@/server/http/endpoint';
import {
  CreateIdentifierBody,
  CreateIdentifierResponse,
  DeletedIdentifierResponse,
  IdentifierEnvelope,
  IdentifierParams,
  LinkBody,
  ListIdentifiersQuery,
  ListIdentifiersResponse,
  UpdateIdentifierBody,
} from './contracts';
import type { IdentifierHooks } from './capabilities';
import { createIdentifier, deleteIdentifier, linkIdentifier, listIdentifiers, makePrimary, updateIdentifier } from './service';

const base = { tags: ['Identifiers'], auth: 'any' as const };

/** The identifier endpoints, with the wiring the composition passes down (the number lookup: channels/imessage/number-lookup.ts). */
export const identifierEndpoints = (hooks: IdentifierHooks = {}) => [
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/identifiers',
    summary: 'Add an identifier (phones stored in E.164; unique in the account)',
    body: CreateIdentifierBody,
    response: CreateIdentifierResponse,
    status: 201,
    errors: [404],
    handle: async ({ db, actor, body }) => reply(201, await createIdentifier(db, actor, body, hooks)),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/identifiers',
    summary: "The user's identifiers",
    query: ListIdentifiersQuery,
    response: ListIdentifiersResponse,
    errors: [404],
    handle: ({ db, actor, query }) => listIdentifiers(db, actor, query),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/identifiers/{identifierId}/make-primary',
    summary: 'Make an email identifier the primary email',
    params: IdentifierParams,
    response: IdentifierEnvelope,
    errors: [404],
    handle: ({ db, actor, params }) => makePrimary(db, actor, params.identifierId),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/identifiers/{identifierId}/link',
    summary: 'Move an identifier to another user (account-wide credentials)',
    params: IdentifierParams,
    body: LinkBody,
    response: IdentifierEnvelope,
    errors: [403, 404],
    handle: ({ db, actor, params, body }) => linkIdentifier(db, actor, params.identifierId, body.userId),
  }),
  defineEndpoint({
    ...base,
    method: 'PATCH',
    path: '/identifiers/{identifierId}',
    summary: "Change an identifier's label, or a verified phone's preferred text platform",
    description:
      'Only sent fields change. `preferredTextPlatform` (imessage, sms, whatsapp; null clears) is for a verified phone: sms always, whatsapp once a WhatsApp message came from the number (`whatsAppCapable`), imessage once the number is known to use iMessage (`iMessageCapable`); otherwise 400 naming the field. Notices sent by text to the user go by it.',
    params: IdentifierParams,
    body: UpdateIdentifierBody,
    response: IdentifierEnvelope,
    errors: [400, 404],
    handle: ({ db, actor, params, body }) => updateIdentifier(db, actor, params.identifierId, body),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/identifiers/{identifierId}',
    summary: 'Remove an identifier (not the last one, nor the primary email)',
    params: IdentifierParams,
    response: DeletedIdentifierResponse,
    errors: [404],
    handle: ({ db, actor, params }) => deleteIdentifier(db, actor, params.identifierId),
  }),
];
