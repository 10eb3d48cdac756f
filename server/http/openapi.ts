import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { AnyEndpoint } from './endpoint';
import { appliesTo, KEY_PATTERN } from './idempotency';
import { operationIds } from './operation-ids';

const ErrorBody = z
  .object({
    ok: z.literal(false),
    status: z.number().int().meta({ description: 'The HTTP status again' }),
    error_code: z.string().meta({ description: 'Stable code to branch on (`not_found`, `bad_request`, `KILL_SWITCH_ENGAGED`...)' }),
    error: z.string().meta({ description: 'What went wrong, for people; a 400 names each field and its problem' }),
  })
  .catchall(z.unknown())
  .meta({ description: 'The error shape of every Steward endpoint; some errors add fields (`fields`, `requiresOwnershipTransfer`...).' });

// Refused before reaching an endpoint (unknown API key, rate limit): the spec's bare shape.
const RefusalBody = z
  .object({
    ok: z.literal(false),
    status: z.number().int().optional(),
    error_code: z.string().optional(),
    error: z.string().optional(),
    retryAfter: z.number().int().optional().meta({ description: 'Unix time (seconds) at which to retry (429)' }),
  })
  .catchall(z.unknown())
  .meta({ description: 'A refusal before the endpoint runs: `{ok:false}` for an unknown, revoked or expired API key; with `error` and `retryAfter` when rate limited; otherwise the Error shape.' });

const STATUS: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'Validation failed or the request conflicts with a rule; `error` names each field and problem' },
  401: { name: 'Unauthorized', description: 'Missing, malformed, unknown, revoked or expired credential' },
  403: { name: 'Forbidden', description: 'Authenticated but not allowed (or account_blocked)' },
  404: { name: 'NotFound', description: 'Not found, or not visible to this caller' },
  409: { name: 'Conflict', description: 'Conflict with the current state' },
  413: { name: 'PayloadTooLarge', description: 'payload_too_large: the body is larger than the server accepts' },
  412: { name: 'PreconditionFailed', description: 'The If-Match etag is stale' },
  422: { name: 'Unprocessable', description: 'idempotency_key_reused: the Idempotency-Key was used for a different request (method, path or body)' },
  423: { name: 'KillSwitchEngaged', description: 'KILL_SWITCH_ENGAGED: the account kill switch is on' },
  428: { name: 'OnboardingRequired', description: 'onboarding_required: the user has not finished setup' },
  429: { name: 'RateLimited', description: 'Rate limited; retry after `Retry-After` seconds' },
  503: { name: 'Unavailable', description: 'Not ready; retry after `Retry-After` seconds' },
};

const RATE_HEADERS = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' as const } },
  'X-RateLimit-Limit': { description: 'Requests allowed per minute', schema: { type: 'integer' as const } },
  'X-RateLimit-Remaining': { description: 'Requests left in this minute (0 when limited)', schema: { type: 'integer' as const } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) the window ends', schema: { type: 'integer' as const } },
};

const TAG_TEXT: Record<string, string> = {
  Documents: 'This API description',
  Operations: 'Liveness, readiness and metrics for load balancers and operators',
  Keys: 'API keys and the calling credential',
  Users: 'Users of the account: provision, change, deprovision',
  Profile: "The acting user's profile, scheduling preferences and onboarding",
  Organizations: 'Organizations, members, domains, SSO and SCIM tokens',
  Teams: 'Teams, members and ownership',
  'Team policy': 'Team switches, locks and approval overrides',
  Identifiers: 'Emails and phones of a user',
  Assistants: 'Assistants and rosters',
  Autonomy: "A user's supervision matrix and recipient exceptions",
  Channels: 'Phone lines, Slack apps and OAuth connections',
  'SCIM 2.0': 'SCIM 2.0 for identity providers (errors in SCIM shape)',
  SSO: 'SAML service-provider endpoints of the hosted domain',
  'Tenant prompt API': 'Prompt templates, versions, blocks and traces (service keys)',
  Memories: 'What assistants remember',
  Contacts: "A user's contacts",
  Files: 'Uploads, downloads and file records',
  Tasks: 'Durable tasks assistants work on',
  Approvals: 'Carts of staged actions waiting for a person',
  Audit: 'Who did what: sign-ins, keys, roles, SSO, domains, locks, approvals (also the webhook event audit.event)',
};

/** Which security requirement an auth level documents (levels areas add get the bearer scheme). */
function securityFor(auth: string): Record<string, string[]>[] {
  if (auth === 'none') return [];
  if (auth === 'service') return [{ serviceKey: [] }];
  if (auth === 'scim') return [{ scimToken: [] }];
  if (auth === 'account') return [{ bearer: [] }];
  // Acting as a user: a user key alone, or an account key (or certificate token) with X-User-Email.
  return [{ bearer: [] }, { bearer: [], actAs: [] }];
}

/** The error statuses an endpoint can answer, from what the kernel does before and around it. */
function errorStatuses(ep: AnyEndpoint): number[] {
  const statuses = new Set(ep.errors ?? []);
  // Every endpoint is rate limited, per credential or per client IP.
  statuses.add(429);
  // A credential is refused (401) or malformed for its use (400: X-User-Email with a user key).
  if (ep.auth !== 'none') [400, 401].forEach((s) => statuses.add(s));
  // API keys and certificates: scopes and the level (an account endpoint refuses a user's key) are 403.
  if (ep.auth === 'user' || ep.auth === 'any' || ep.auth === 'account') statuses.add(403);
  if (ep.auth === 'user' || ep.auth === 'any') statuses.add(428);
  // The lean server refuses a body over its limit before anything reads it.
  if (ep.method !== 'GET') statuses.add(413);
  if (ep.auth === 'service' || ep.params || ep.path.includes('{')) statuses.add(404);
  if (ep.killSwitch) statuses.add(423);
  if (ep.body || ep.query || ep.params) statuses.add(400);
  // Idempotency-Key: a malformed key (400), one reused for another request (422), one still being answered (409).
  if (takesIdempotencyKey(ep)) [400, 409, 422].forEach((s) => statuses.add(s));
  return [...statuses].filter((s) => s >= 400).sort((a, b) => a - b);
}

/** POST and PATCH with a credential take Idempotency-Key (spec 5); anonymous calls have no credential to keep it for. */
const takesIdempotencyKey = (ep: AnyEndpoint) => appliesTo(ep.method) && ep.auth !== 'none';

const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description:
    'Makes a retry safe: the first answer (status and body) is kept 24 hours per credential and key and replayed with `Idempotent-Replayed: true`. ' +
    'The same key for a different method, path or body is 422 `idempotency_key_reused`; while the first request is still answered a retry waits, then gets 409 `idempotency_key_in_use`. ' +
    'A streamed answer (text/event-stream) is not replayed: 409 while the work it started runs, then a JSON summary of it.',
  schema: { type: 'string' as const, minLength: 1, maxLength: 255, pattern: KEY_PATTERN },
};
const REPLAYED_HEADER = { 'Idempotent-Replayed': { description: '`true` when this is the kept answer to an earlier request with the same Idempotency-Key', schema: { type: 'string' as const, enum: ['true'] } } };

export const OPENAPI_INFO = {
  title: 'Steward API',
  version: '0.1.0',
  description:
    'Assistants that work for end users: access, users, organizations, assistants, work resources, tasks and approvals, and the tenant prompt API. ' +
    'Every request carries `Authorization: Bearer <credential>`; errors have the shape `{ok:false, status, error_code, error}`. ' +
    'A typed Node client is published as `@steward/client`.',
  // No public home page yet: the contact names who answers for the API of this deployment.
  contact: { name: 'Steward maintainers' },
  // OpenAPI 3.1 allows `identifier` or `url`, not both; the url is what tools show.
  license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
};

/** A Zod schema as a components.schemas entry (OpenAPI 3.1 schemas are JSON Schema 2020-12). */
function componentSchema(schema: z.ZodType) {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output' }) as Record<string, unknown>;
  return rest;
}

/** OpenAPI 3.1 built from the same registry and Zod schemas that serve requests. */
export function buildOpenApi(endpoints: AnyEndpoint[], serverUrl = '/api') {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An ak_live_ API key, or an RS256 certificate token. Add X-User-Email with an account key to act as a user.',
  });
  registry.registerComponent('securitySchemes', 'serviceKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'A tenant prompt API service key (sk_live_), bound to one tenant.',
  });
  registry.registerComponent('schemas', 'Error', componentSchema(ErrorBody));
  registry.registerComponent('schemas', 'Refusal', componentSchema(RefusalBody));
  const idempotencyKey = registry.registerComponent('parameters', 'IdempotencyKey', IDEMPOTENCY_PARAMETER).ref;

  const published = endpoints.filter((ep) => !ep.internal);
  const { ids } = operationIds(published);
  const used = { actAs: false, scimToken: false, responses: new Map<string, { $ref: string }>() };

  const errorResponse = (status: number, dialect: boolean) => {
    const meta = STATUS[status] ?? { name: `Status${status}`, description: 'Error' };
    const name = dialect ? `${meta.name}InProtocolShape` : meta.name;
    let ref = used.responses.get(name);
    if (!ref) {
      const schema = { $ref: `#/components/schemas/${status === 401 || status === 429 ? 'Refusal' : 'Error'}` };
      ref = registry.registerComponent('responses', name, {
        description: dialect ? `${meta.description} (in the protocol's own error shape)` : meta.description,
        ...(status === 429 || status === 503 ? { headers: status === 429 ? RATE_HEADERS : { 'Retry-After': RATE_HEADERS['Retry-After'] } } : {}),
        // Under a protocol with its own error dialect (SCIM) the body is that protocol's, not ours.
        ...(dialect ? {} : { content: { 'application/json': { schema } } }),
      }).ref;
      used.responses.set(name, ref);
    }
    return ref;
  };

  for (const ep of published) {
    const dialect = ep.errorDialect !== undefined;
    const idempotent = takesIdempotencyKey(ep);
    const mediaType = ep.produces?.mediaType ?? 'application/json';
    const success = { description: 'Success', ...(idempotent ? { headers: REPLAYED_HEADER } : {}), content: { [mediaType]: { schema: ep.response } } };
    const responses: Record<string, { description: string; headers?: Record<string, { description: string; schema: object }>; content?: Record<string, { schema: z.ZodType }> } | { $ref: string }> = {
      [ep.status ?? 200]: success,
    };
    // Other success statuses an endpoint declares in `errors` (200 for a create that found the resource, 204...): the same body.
    // A 3xx is a redirect: no body, a Location header.
    for (const s of ep.errors ?? [])
      if (s < 400 && !responses[s]) responses[s] = s >= 300 ? { description: 'Redirect', headers: { Location: { description: 'Where to go next', schema: { type: 'string' } } } } : success;
    for (const s of errorStatuses(ep)) if (!ep.produces?.statuses?.includes(s)) responses[s] = errorResponse(s, dialect);
    // Statuses whose body is the endpoint's own document (an HTML page saying a link expired), not the error shape.
    for (const s of ep.produces?.statuses ?? []) responses[s] = { description: STATUS[s]?.description ?? 'Document', content: { [mediaType]: { schema: ep.response } } };
    const security = securityFor(ep.auth);
    if (security.some((r) => 'actAs' in r)) used.actAs = true;
    if (security.some((r) => 'scimToken' in r)) used.scimToken = true;
    registry.registerPath({
      method: ep.method.toLowerCase() as 'get',
      path: ep.path,
      operationId: ids.get(ep),
      summary: ep.summary,
      ...(ep.description ? { description: ep.description } : {}),
      tags: ep.tags,
      security,
      ...(idempotent ? { parameters: [idempotencyKey] } : {}),
      request: {
        ...(ep.params ? { params: ep.params } : {}),
        ...(ep.query ? { query: ep.query } : {}),
        ...(ep.body ? { body: { content: { 'application/json': { schema: ep.body } } } } : {}),
      },
      responses,
    });
  }
  if (used.actAs) {
    registry.registerComponent('securitySchemes', 'actAs', {
      type: 'apiKey',
      in: 'header',
      name: 'X-User-Email',
      description: 'With an account key or certificate token: act as the user holding this verified email (401 when none does).',
    });
  }
  if (used.scimToken) {
    registry.registerComponent('securitySchemes', 'scimToken', {
      type: 'http',
      scheme: 'bearer',
      description: "An organization's SCIM token (minted by POST /organizations/{orgId}/scim/token).",
    });
  }
  const tagNames = [...new Set(published.flatMap((ep) => ep.tags))];
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: OPENAPI_INFO,
    servers: [{ url: serverUrl, description: 'This Steward deployment' }],
    tags: tagNames.map((name) => ({ name, description: TAG_TEXT[name] ?? `${name} endpoints` })),
  });
}
