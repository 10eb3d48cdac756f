import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { AnyEndpoint } from './endpoint';

const ErrorBody = z.object({
  ok: z.literal(false),
  status: z.number().int(),
  error_code: z.string(),
  error: z.string(),
});

const STATUS_TEXT: Record<number, string> = {
  400: 'Validation failed or the request conflicts with a rule; `error` names each field and problem',
  401: 'Missing, malformed, unknown, revoked or expired credential',
  403: 'Authenticated but not allowed (or account_blocked)',
  404: 'Not found, or not visible to this caller',
  409: 'Conflict with the current state',
  412: 'The If-Match etag is stale',
  423: 'KILL_SWITCH_ENGAGED',
  428: 'onboarding_required',
  429: 'Rate limited',
};

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
  for (const ep of endpoints) {
    if (ep.internal) continue;
    const responses: Record<number, { description: string; content?: Record<string, { schema: z.ZodType }> }> = {
      [ep.status ?? 200]: { description: 'Success', content: { 'application/json': { schema: ep.response } } },
    };
    const errorStatuses = new Set(ep.errors ?? []);
    if (ep.auth !== 'none') [401, 429].forEach((s) => errorStatuses.add(s));
    if (ep.auth === 'user' || ep.auth === 'any') [403, 428].forEach((s) => errorStatuses.add(s));
    if (ep.auth === 'service') errorStatuses.add(404);
    if (ep.killSwitch) errorStatuses.add(423);
    if (ep.body || ep.query || ep.params) errorStatuses.add(400);
    for (const s of [...errorStatuses].sort()) {
      responses[s] = { description: STATUS_TEXT[s] ?? 'Error', content: { 'application/json': { schema: ErrorBody } } };
    }
    registry.registerPath({
      method: ep.method.toLowerCase() as 'get',
      path: ep.path,
      summary: ep.summary,
      tags: ep.tags,
      security: ep.auth === 'none' ? [] : ep.auth === 'service' ? [{ serviceKey: [] }] : [{ bearer: [] }],
      request: {
        ...(ep.params ? { params: ep.params } : {}),
        ...(ep.query ? { query: ep.query } : {}),
        ...(ep.body ? { body: { content: { 'application/json': { schema: ep.body } } } } : {}),
      },
      responses,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Steward API',
      version: '0.1.0',
      description: 'Assistants that work for end users: access, users, organizations, assistants, work resources and the tenant prompt API.',
    },
    servers: [{ url: serverUrl }],
  });
}
