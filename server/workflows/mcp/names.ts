import { createHash } from 'node:crypto';

/** The most characters a tool name may have (the limit model APIs put on function names). */
export const MAX_TOOL_NAME = 64;
const HASH_LENGTH = 8;

/**
 * An installed MCP skill's tool as the agent sees it (spec document 4, Skills wire details):
 * `mcp__<skill name>__<tool name>`, every character outside `[a-zA-Z0-9_-]` replaced by `_`, at
 * most 64 characters. When it must be cut, the tail becomes `_` and a short hash of the full
 * name, so two long names that share a beginning stay distinct and the same name always maps
 * to the same tool name (replays of a run see the same tools).
 */
export function mcpToolName(skillName: string, toolName: string): string {
  const full = `mcp__${skillName}__${toolName}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (full.length <= MAX_TOOL_NAME) return full;
  const hash = createHash('sha256').update(`mcp__${skillName}__${toolName}`).digest('hex').slice(0, HASH_LENGTH);
  return `${full.slice(0, MAX_TOOL_NAME - HASH_LENGTH - 1)}_${hash}`;
}

/** A tool is a read, passed through at once, only when the server says so (`readOnlyHint: true`); anything else acts and is staged. */
export const isReadOnly = (annotations: Record<string, unknown> | null | undefined) => annotations?.readOnlyHint === true;
