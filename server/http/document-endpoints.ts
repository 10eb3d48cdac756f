import { z } from 'zod';
import { defineEndpoint, type AnyEndpoint } from './endpoint';
import { buildOpenApi } from './openapi';
import { json } from './reply';

/**
 * GET /openapi.json, built from the registry it is given (lazily: the registry includes this
 * endpoint, so it is read at the first request, not while the list is being made).
 */
export function documentEndpoints(registry: () => AnyEndpoint[]): AnyEndpoint[] {
  let cached: unknown;
  return [
    defineEndpoint({
      method: 'GET',
      path: '/openapi.json',
      summary: 'This OpenAPI 3.1 document',
      tags: ['Documents'],
      auth: 'none',
      raw: true,
      response: z.unknown(),
      handle: async () => {
        cached ??= buildOpenApi(registry());
        return json(200, cached, { 'Cache-Control': 'public, max-age=60' });
      },
    }),
  ];
}
