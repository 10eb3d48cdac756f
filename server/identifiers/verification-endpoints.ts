import { requestOf } from '@/server/audit/request-meta';
import { defineEndpoint } from '@/server/http/endpoint';
import type { IdentifierHooks } from './capabilities';
import { IdentifierParams } from './contracts';
import { VerificationSentResponse, VerifiedResponse, VerifyBody } from './verification-contracts';
import { requestVerification, verifyIdentifier } from './verification';

const base = { tags: ['Identifiers'], auth: 'user' as const, params: IdentifierParams };

/** Spec 5, "Identifier verification": a one-time code to the identifier, then the code back. */
export const identifierVerificationEndpoints = (hooks: IdentifierHooks = {}) => [
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/identifiers/{identifierId}/verification',
    summary: 'Send a one-time code to one of your identifiers: by email to an address, by SMS to a phone (409 sms_not_configured where no SMS provider is set up)',
    description:
      'A 6-digit code, valid 10 minutes, replacing any earlier one. At most 5 codes to one number or address every 15 minutes (whichever identifier holds it), and fewer per user and per client address (429 rate_limited with Retry-After). 409 already_verified for a verified identifier.',
    response: VerificationSentResponse,
    errors: [400, 404, 409, 429, 503],
    // The client address the kernel noted for this write (X-Forwarded-For only behind TRUST_PROXY): API callers are counted by it too.
    handle: ({ db, actor, params }) => requestVerification(db, actor, params.identifierId, requestOf(actor)?.ip ?? null),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/identifiers/{identifierId}/verify',
    summary: 'Confirm an identifier with the code it received: it becomes verified',
    description: '400 invalid_code for a wrong or expired code; after 5 wrong codes the code is spent and a new one must be asked for.',
    body: VerifyBody,
    response: VerifiedResponse,
    errors: [400, 404],
    handle: ({ db, actor, params, body }) => verifyIdentifier(db, actor, params.identifierId, body.code, new Date(), hooks),
  }),
];
