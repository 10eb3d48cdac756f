import { z } from 'zod';
import { defineEndpoint } from './endpoint';
import { json } from './kernel';
import { buildOpenApi } from './openapi';

let cached: unknown;

export const documentEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tags: ['Documents'],
    auth: 'none',
    raw: true,
    response: z.unknown(),
    handle: async () => {
      if (!cached) {
        const { endpoints } = await import('@/server/endpoints');
        cached = buildOpenApi(endpoints);
      }
      return json(200, cached, { 'Cache-Control': 'public, max-age=60' });
    },
  }),
];
