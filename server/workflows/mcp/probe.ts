import { AppError } from '@/server/http/errors';
import { checkOutboundUrl } from '@/server/http/outbound-url';
import { describeMcpError, McpUnreachable, MCP_TIMEOUT_MS, withMcpClient, type McpConnection } from './connect';
import { MCP_ALLOW_VARIABLE } from './guarded-fetch';

/** One tool as the server listed it; what the agent's `mcp__<skill>__<tool>` tool is built from. */
export type McpToolInfo = {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
};

/** What a probe learned: the server's `initialize` answer and its `tools/list`. Kept on the skill (mcpServerInfo). */
export type McpServerInfo = {
  name: string;
  title: string | null;
  description: string | null;
  version: string | null;
  tools: McpToolInfo[];
  /** OAuth servers probed before anyone authorized Steward: reachable, asked for authorization. */
  authorizationRequired?: boolean;
};

export type ProbeInput = Omit<McpConnection, 'url'> & { url: string };

/** 400 `mcp_unreachable` naming the URL and the cause: what POST /skills answers for a server it cannot use. */
export const mcpUnreachable = (url: string, cause: string) =>
  new AppError(400, 'mcp_unreachable', `The MCP server at ${url} could not be reached: ${cause}`, { field: 'mcpServerUrl', url, cause });

/** A tool list page cap: a server listing more than this many tools is cut (the model could not use them all anyway). */
const MAX_TOOLS = 200;
const EMPTY_SCHEMA = { type: 'object', properties: {} };

/** Lists every tool (following cursors) on a connected client. */
export async function listAllTools(client: Parameters<Parameters<typeof withMcpClient>[1]>[0]): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: MCP_TIMEOUT_MS });
    for (const t of page.tools) {
      tools.push({
        name: t.name,
        description: (t.description ?? t.title ?? t.annotations?.title ?? '').slice(0, 4000),
        inputSchema: (t.inputSchema as Record<string, unknown> | undefined) ?? EMPTY_SCHEMA,
        annotations: (t.annotations as Record<string, unknown> | undefined) ?? null,
      });
    }
    cursor = page.nextCursor;
  } while (cursor && tools.length < MAX_TOOLS);
  return tools.slice(0, MAX_TOOLS);
}

/**
 * Connects to an MCP server, asks `initialize` and `tools/list`, and closes. The URL is checked
 * first under the outbound rule (no address inside the deployment's network unless the operator
 * allows it in STEWARD_MCP_ALLOWED_RANGES). Anything that keeps Steward from using the server
 * (bad URL, refused, timeout, not MCP, bad credential) is 400 `mcp_unreachable` with the cause.
 * An `oauth` server that answers "authorize first" when no token exists yet is reachable: the
 * answer says so (`authorizationRequired`) and lists no tools until someone authorizes.
 */
export async function probeMcpServer(input: ProbeInput): Promise<McpServerInfo> {
  try {
    await checkOutboundUrl(input.url, { field: 'mcpServerUrl', allowVariable: MCP_ALLOW_VARIABLE });
  } catch (e) {
    if (e instanceof AppError) throw mcpUnreachable(input.url, e.message);
    throw e;
  }
  try {
    return await withMcpClient(input, async (client) => {
      const server = client.getServerVersion();
      const tools = await listAllTools(client);
      return {
        name: server?.name ?? new URL(input.url).hostname,
        title: server?.title ?? null,
        description: server?.description ?? client.getInstructions()?.slice(0, 2000) ?? null,
        version: server?.version ?? null,
        tools,
      };
    });
  } catch (e) {
    if (e instanceof McpUnreachable) {
      if (input.authType === 'oauth' && e.unauthorized && !input.oauthTokens) {
        return { name: new URL(input.url).hostname, title: null, description: null, version: null, tools: [], authorizationRequired: true };
      }
      throw mcpUnreachable(input.url, e.reason);
    }
    throw mcpUnreachable(input.url, describeMcpError(e));
  }
}
