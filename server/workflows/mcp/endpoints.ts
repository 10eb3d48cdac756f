import { z } from 'zod';
import { defineEndpoint } from '@/server/http/endpoint';
import { finishMcpOauth, startMcpOauth } from './oauth';

const tags = ['Skills'];

const SkillParams = z.object({ skillId: z.string().min(1).max(100) });
const StartBody = z.object({ returnTo: z.string().max(2000).optional() }).optional();
const StartResponse = z.object({ ok: z.literal(true), authorizationUrl: z.string(), expiresAt: z.string() });
const CallbackQuery = z.object({ state: z.string().min(1, 'is required').max(500), code: z.string().max(4000).optional(), error: z.string().max(500).optional() });
const CallbackResponse = z.object({ ok: z.literal(true), skill: z.object({ id: z.string(), name: z.string() }), authorized: z.literal(true), tools: z.array(z.string()) });

/** The MCP authorization flow of `oauth` skills (docs/mcp-skills.md). */
export const mcpSkillEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/skills/{skillId}/oauth/start',
    summary: 'Begin authorizing Steward at an oauth MCP server: open the returned authorizationUrl in a browser',
    tags,
    auth: 'any',
    params: SkillParams,
    body: StartBody,
    response: StartResponse,
    errors: [400, 403, 404],
    handle: ({ db, actor, params, body }) => startMcpOauth(db, actor, params.skillId, body ?? {}),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/skills/oauth/callback',
    summary: 'Where the MCP server’s authorization server sends the person back (state used once)',
    tags,
    auth: 'none',
    query: CallbackQuery,
    response: CallbackResponse,
    errors: [400, 404],
    handle: ({ db, query }) => finishMcpOauth(db, query),
  }),
];
