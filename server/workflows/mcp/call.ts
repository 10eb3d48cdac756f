import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Tx } from '@/db/client';
import { describeMcpError, McpUnreachable, MCP_TIMEOUT_MS, withMcpClient, type McpConnection } from './connect';
import type { McpSkill } from './installed';
import { storedOauthProvider } from './oauth-provider';
import { openMcpSecret } from './secret';

/** The most characters of a tool's answer kept (for the model, the activity and the record). */
const MAX_RESULT = 20_000;

/**
 * What one tools/call gave: the server's answer as text (`isError` when the tool itself reported
 * failure), or why it did not answer. `maybeDone`: the call may have reached the server before
 * the answer was lost (a timeout, a dropped connection), so whether it acted is unknown.
 */
export type McpCallResult = { reached: true; isError: boolean; content: string; structured: unknown } | { reached: false; error: string; maybeDone: boolean };

/** How to reach the skill's server, with its credential opened from the sealed secret. */
export async function connectionFor(db: Tx, skill: McpSkill): Promise<McpConnection> {
  const secret = await openMcpSecret(db, skill.secretSealed);
  const base = { url: skill.url, transport: skill.transport, authType: skill.authType };
  if (skill.authType === 'api_key') return { ...base, apiKey: secret.apiKey ?? null };
  if (skill.authType === 'oauth') return { ...base, oauthProvider: storedOauthProvider(db, skill, secret) };
  return base;
}

type Part = { type: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string }; uri?: string; name?: string };

/** The content parts as one text: text as it is, other kinds named (an image is not sent on to the model). */
function textOf(content: Part[] | undefined): string {
  const lines = (content ?? []).map((p) => {
    if (p.type === 'text') return p.text ?? '';
    if (p.type === 'resource') return p.resource?.text ?? `[resource ${p.resource?.uri ?? ''}]`;
    if (p.type === 'resource_link') return `[resource link ${p.name ?? ''} ${p.uri ?? ''}]`.trim();
    return `[${p.type}${p.mimeType ? ` ${p.mimeType}` : ''}]`;
  });
  const text = lines.join('\n');
  return text.length > MAX_RESULT ? `${text.slice(0, MAX_RESULT)}\n[cut: the answer was longer]` : text;
}

/** One tools/call on a fresh connection. Never throws for the server's sake: an unreachable server is an answer. */
export async function callMcpTool(db: Tx, skill: McpSkill, tool: string, args: Record<string, unknown>): Promise<McpCallResult> {
  let connection: McpConnection;
  try {
    connection = await connectionFor(db, skill);
  } catch (e) {
    return { reached: false, error: `The credential of the MCP skill ${skill.name} could not be opened: ${describeMcpError(e)}`, maybeDone: false };
  }
  try {
    return await withMcpClient(connection, async (client) => {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: MCP_TIMEOUT_MS });
      return {
        reached: true as const,
        isError: result.isError === true,
        content: textOf(result.content as Part[] | undefined),
        structured: (result.structuredContent as unknown) ?? null,
      };
    });
  } catch (e) {
    if (e instanceof McpUnreachable) return { reached: false, error: e.message, maybeDone: false };
    // A JSON-RPC error the server answered (unknown tool, bad arguments) means it refused; a timeout or a lost connection leaves it open.
    const lost = !(e instanceof McpError) || e.code === ErrorCode.RequestTimeout || e.code === ErrorCode.ConnectionClosed;
    return { reached: false, error: `The MCP server at ${skill.url} did not complete the call: ${describeMcpError(e)}`, maybeDone: lost };
  }
}
