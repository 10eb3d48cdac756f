import type { SkillRow } from '@/db/schema/skills';
import type { McpServerInfo } from './mcp/probe';
import { isReadOnly, mcpToolName } from './mcp/names';

/** A skill as the API shows it; an MCP skill's secret never leaves the table. */
export function presentSkill(s: SkillRow) {
  const info = (s.mcpServerInfo ?? null) as McpServerInfo | null;
  return {
    id: s.id,
    kind: s.kind,
    name: s.name,
    title: s.title,
    description: s.description,
    scope: s.ownerUserId ? ('user' as const) : ('account' as const),
    ownerUserId: s.ownerUserId,
    enabled: s.enabled,
    instructions: s.instructions,
    triggers: s.triggers,
    scheduleType: s.scheduleType,
    maxRuns: s.maxRuns,
    recurrenceEndsAt: s.recurrenceEndsAt?.toISOString() ?? null,
    maxConcurrent: s.maxConcurrent,
    cooldownMs: s.cooldownMs,
    overflowBehavior: s.overflowBehavior,
    runCount: s.runCount,
    lastFiredAt: s.lastFiredAt?.toISOString() ?? null,
    applies: s.kind === 'instructions' || s.kind === 'prompt' ? (s.applies ?? 'always') : null,
    prompt: s.kind === 'prompt' && s.promptName ? { name: s.promptName, version: s.promptVersion, variables: s.promptVariables ?? {} } : null,
    mcp:
      s.kind === 'mcp' && s.mcpServerUrl
        ? {
            serverUrl: s.mcpServerUrl,
            transport: s.mcpTransport ?? 'streamable-http',
            authType: s.mcpAuthType ?? 'none',
            serverName: info?.name ?? null,
            authorizationRequired: Boolean(info?.authorizationRequired),
            tools: (info?.tools ?? []).map((t) => ({ name: mcpToolName(s.name, t.name), tool: t.name, description: t.description, readOnly: isReadOnly(t.annotations) })),
          }
        : null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
