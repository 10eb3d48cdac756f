import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { guardedFetch } from './guarded-fetch';

export const MCP_TRANSPORTS = ['streamable-http', 'sse'] as const;
export const MCP_AUTH_TYPES = ['none', 'oauth', 'api_key'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];
export type McpAuthType = (typeof MCP_AUTH_TYPES)[number];

/** How to reach one MCP server. `oauth`: a provider that reads (and refreshes) the sealed tokens, or a bare access token. */
export type McpConnection = {
  url: string;
  transport: McpTransport;
  authType: McpAuthType;
  apiKey?: string | null;
  oauthProvider?: OAuthClientProvider;
  oauthTokens?: { access_token: string } | null;
};

/** The server could not be reached, refused us, or did not speak MCP; `cause` says which, in words. */
export class McpUnreachable extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
    readonly unauthorized = false,
  ) {
    super(`The MCP server at ${url} could not be used: ${reason}`);
  }
}

/** How long one MCP request (initialize, tools/list, tools/call) may take before it counts as unreachable. */
export const MCP_TIMEOUT_MS = Number(process.env.STEWARD_MCP_TIMEOUT_MS ?? 20_000);

const CLIENT_INFO = { name: 'steward', version: '1.0.0' };

function describe(e: unknown): string {
  const err = e as { message?: string; code?: unknown; cause?: { code?: string; message?: string } };
  const code = err?.cause?.code ?? (typeof err?.code === 'string' ? err.code : typeof err?.code === 'number' && err.code >= 400 && err.code < 600 ? `HTTP ${err.code}` : undefined);
  const text = (err?.message ?? String(e)).replace(/\s+/g, ' ').trim().slice(0, 300);
  return code && !text.includes(code) ? `${text} (${code})` : text;
}

function transportFor(c: McpConnection): Transport {
  const url = new URL(c.url);
  const headers: Record<string, string> = {};
  if (c.authType === 'api_key' && c.apiKey) headers.Authorization = `Bearer ${c.apiKey}`;
  if (c.authType === 'oauth' && !c.oauthProvider && c.oauthTokens?.access_token) headers.Authorization = `Bearer ${c.oauthTokens.access_token}`;
  const authProvider = c.authType === 'oauth' ? c.oauthProvider : undefined;
  // Redirects stay within the server's origin: a redirect must not carry the credential elsewhere.
  const common = { fetch: guardedFetch, requestInit: { headers }, authProvider, redirectPolicy: 'same-origin' as const };
  return c.transport === 'sse' ? new SSEClientTransport(url, common) : new StreamableHTTPClientTransport(url, { ...common, reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 } });
}

/**
 * One connection for one piece of work: connect (initialize), `work`, close, whatever happens.
 * A connection per call keeps no state between runs and never crosses users; failures to
 * connect become McpUnreachable. Errors thrown by `work` itself are passed through.
 */
export async function withMcpClient<T>(c: McpConnection, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    try {
      await client.connect(transportFor(c), { timeout: MCP_TIMEOUT_MS });
    } catch (e) {
      const unauthorized = (e as Error)?.name === 'UnauthorizedError' || (e as { code?: unknown })?.code === 401 || /\b401\b|unauthorized|invalid_token/i.test(describe(e));
      throw new McpUnreachable(c.url, describe(e), unauthorized);
    }
    return await work(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}

export { describe as describeMcpError };
