import { eq } from 'drizzle-orm';
import type { JSONSchema7 } from 'ai';
import { z } from 'zod';
import type { Tx } from '@/db/client';
import { taskRuns, tasks } from '@/db/schema';
import { stageDispatch } from '@/server/approvals/staging';
import { resolveTaskDispatchMode } from '@/server/policy/autonomy-resolve';
import { callMcpTool } from '@/server/workflows/mcp/call';
import { installedMcpSkills, type McpSkill } from '@/server/workflows/mcp/installed';
import { isReadOnly, mcpToolName } from '@/server/workflows/mcp/names';
import { usableBy } from '@/server/workflows/skill-context';
import type { McpToolInfo } from '@/server/workflows/mcp/probe';
import { defineTool, type AgentTool } from './registry';

/*
 * An installed MCP skill's tools as the agent's `mcp__<skill>__<tool>` tools (spec document 4,
 * Tools): built per run from the tools the skill stored when it was installed (or last
 * authorized), so every step of a run, replayed or not, sees the same list without asking the
 * server. A tool the server marks readOnlyHint is a read: called at once, its answer returned to
 * the model (as untrusted data, like every tool result). Every other tool acts: it is staged in
 * the run's cart as a `skill_action` dispatch with action type `third_party_skills`, and the
 * server is called only when the cart is released (server/approvals/delivery.ts).
 */

/** The payload of a staged MCP call: what is shown to the person and what execution calls. */
export type SkillActionPayload = { skillId: string; skill: string; server: string; tool: string; arguments: Record<string, unknown> };

/** The model's arguments: an object; the server checks them against its own schema. */
const Arguments = z.record(z.string(), z.unknown(), { message: 'must be an object of the tool’s arguments' });

const objectSchema = (schema: Record<string, unknown>): JSONSchema7 =>
  (schema && schema.type === 'object' ? schema : { type: 'object', properties: {} }) as JSONSchema7;

/** A server's long description is cut from its start: the end says how the tool behaves here, which must reach the model. */
const MAX_DESCRIPTION = 2048;

const serverLabel = (skill: McpSkill) => skill.title ?? skill.info?.title ?? skill.name;

function readTool(skill: McpSkill, info: McpToolInfo, name: string): AgentTool {
  return defineTool({
    name,
    description: `${info.description || info.name} (tool ${info.name} of the ${serverLabel(skill)} MCP server; a read: it runs at once and its answer is data from that server).`.slice(-MAX_DESCRIPTION),
    input: Arguments,
    inputJsonSchema: objectSchema(info.inputSchema),
    handler: async (db, _actor, _task, input) => {
      const result = await callMcpTool(db, skill, info.name, input);
      if (!result.reached) return { output: { error: `${result.error}. Nothing was read; tell the user if the task depends on it, or work around it.`, server: serverLabel(skill) } };
      return { output: { server: serverLabel(skill), tool: info.name, isError: result.isError, content: result.content, ...(result.structured ? { structured: result.structured } : {}) } };
    },
  });
}

function actingTool(skill: McpSkill, info: McpToolInfo, name: string): AgentTool {
  return defineTool({
    name,
    description: (
      `${info.description || info.name} (tool ${info.name} of the ${serverLabel(skill)} MCP server). It acts, so it is staged, not run at once: ` +
      'when this run ends it is released as the user’s autonomy settings say for third-party skills (often only after the user approves), and you are told the outcome later.'
    ).slice(-MAX_DESCRIPTION),
    input: Arguments,
    inputJsonSchema: objectSchema(info.inputSchema),
    handler: async (db, actor, task, input, run) => {
      const payload: SkillActionPayload = { skillId: skill.id, skill: skill.name, server: serverLabel(skill), tool: info.name, arguments: input };
      const staged = await stageDispatch(db, actor, task, run.runId, {
        type: 'skill_action',
        platform: 'mcp',
        actionType: 'third_party_skills',
        description: `${serverLabel(skill)}: ${info.name}`,
        payload,
      });
      const { mode } = await resolveTaskDispatchMode(db, actor.user, 'third_party_skills', [], task.approvalMode ?? null);
      return {
        output: {
          staged: true,
          done: false,
          cartId: staged.cartId,
          dispatchIndex: staged.index,
          release: mode,
          note: `Staged, not done yet: ${info.name} runs on the ${serverLabel(skill)} server when the cart is released (${mode}). You are told the outcome in a later run.`,
        },
      };
    },
  });
}

/** The tools of the given skills, named by the spec's rule; a name already taken (the user's own skill first) is skipped. */
export function mcpAgentTools(skills: McpSkill[], taken: ReadonlySet<string> = new Set()): AgentTool[] {
  const seen = new Set(taken);
  const out: AgentTool[] = [];
  for (const skill of skills) {
    for (const info of skill.info?.tools ?? []) {
      const name = mcpToolName(skill.name, info.name);
      if (seen.has(name)) continue;
      seen.add(name);
      out.push(isReadOnly(info.annotations) ? readTool(skill, info, name) : actingTool(skill, info, name));
    }
  }
  return out;
}

/**
 * The MCP tools of one run: the skills of the run's task owner (their own and app-wide), all of
 * them when the task's skills[] is empty, else only those it names (workflows/skill-context.ts).
 */
export async function mcpToolsForRun(db: Tx, runId: string, taken?: ReadonlySet<string>): Promise<AgentTool[]> {
  const [row] = await db
    .select({ accountId: tasks.accountId, userId: tasks.userId, skills: tasks.skills })
    .from(taskRuns)
    .innerJoin(tasks, eq(tasks.id, taskRuns.taskId))
    .where(eq(taskRuns.id, runId));
  if (!row) return [];
  return mcpAgentTools((await installedMcpSkills(db, row)).filter(usableBy(row.skills)), taken);
}
