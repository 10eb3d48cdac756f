import { createSubtasks, createTask } from './delegation-tools';
import { saveMemory, searchContacts, searchMemories } from './resource-tools';
import { ToolRegistry } from './registry';
import { stagingTools } from './staging-tools';
import { askUser, completeTask, setAlarm, updatePlan } from './task-tools';
import { waitForReply } from './wait-tools';
import { requestHandoff } from './handoff-tools';
import { browserTools } from './browser-tools';
import type { Tx } from '@/db/client';
import { mcpToolsForRun } from './mcp-tools';

/** The tools every task run has (spec: Tools); browser and MCP tools join them in their issues. */
export const coreTaskTools = () =>
  new ToolRegistry([
    askUser,
    waitForReply,
    requestHandoff,
    setAlarm,
    updatePlan,
    completeTask,
    createTask,
    createSubtasks,
    saveMemory,
    searchMemories,
    searchContacts,
    ...stagingTools,
    ...browserTools,
  ]);

/**
 * The tools of one task run: the core tools and the MCP tools of the skills installed for the
 * task's owner (read from the stored skill info, so each step of the run sees the same list).
 */
export async function taskToolsForRun(db: Tx, runId: string): Promise<ToolRegistry> {
  const registry = coreTaskTools();
  for (const t of await mcpToolsForRun(db, runId, new Set(registry.names()))) registry.register(t);
  return registry;
}

/** At most this many tool steps (model calls answered with tool calls) per run (spec: Tools). */
export const MAX_TOOL_STEPS = 25;
