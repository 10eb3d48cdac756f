import { createSubtasks, createTask } from './delegation-tools';
import { searchContacts } from './resource-tools';
import { memoryTools } from './memory-tools';
import { ToolRegistry } from './registry';
import { placeCall, sendEmail, sendMessage, stagingTools } from './staging-tools';
import { askUser, completeTask, setAlarm, updatePlan } from './task-tools';
import { waitForReply } from './wait-tools';
import { requestHandoff } from './handoff-tools';
import { browserTools } from './browser-tools';
import { shellTools } from './shell-tools';
import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { taskRuns, tasks } from '@/db/schema';
import { strangerOf } from '@/server/tasks/strangers';
import { mcpToolsForRun } from './mcp-tools';
import { taskNamesBrowser } from '@/server/workflows/browser-skill';
import { mailTools } from './mail-tools';
import { readFile } from './file-tools';
import { saveContact } from './contact-tools';
import { calendarTools } from './calendar-tools';

/** The tools every task run has (spec: Tools); `browser: false` leaves out the browser tools (a task whose skills[] does not name it). */
export const coreTaskTools = (opts: { browser?: boolean } = {}) =>
  new ToolRegistry([
    askUser,
    waitForReply,
    requestHandoff,
    setAlarm,
    updatePlan,
    completeTask,
    createTask,
    createSubtasks,
    ...memoryTools,
    searchContacts,
    ...stagingTools,
    ...calendarTools,
    ...(opts.browser === false ? [] : browserTools),
    ...shellTools,
    ...mailTools,
    readFile,
    saveContact,
  ]);

/**
 * The tools of a conversation with a stranger (tasks/strangers.ts): answer them (staged, held for
 * the owner by taint), ask the owner, keep the plan, wait, finish. Nothing that reads the owner's
 * data (memories, contacts, mail, files, the browser, skills) is offered.
 */
export const strangerTools = () => new ToolRegistry([askUser, waitForReply, setAlarm, updatePlan, completeTask, sendEmail, sendMessage, placeCall]);

/**
 * The tools of one task run: the core tools and the MCP tools of the skills installed for the
 * task's owner (read from the stored skill info, so each step of the run sees the same list).
 * A task whose skills[] names skills gets only those skills' MCP tools, and the browser tools
 * only when it names the browser skill (workflows/skill-context.ts, browser-skill.ts).
 */
export async function taskToolsForRun(db: Tx, runId: string): Promise<ToolRegistry> {
  const [row] = await db
    .select({ tags: tasks.tags, accountId: tasks.accountId, skills: tasks.skills })
    .from(taskRuns)
    .innerJoin(tasks, eq(tasks.id, taskRuns.taskId))
    .where(eq(taskRuns.id, runId));
  if (row && strangerOf(row)) return strangerTools();
  const registry = coreTaskTools({ browser: !row || (await taskNamesBrowser(db, row)) });
  for (const t of await mcpToolsForRun(db, runId, new Set(registry.names()))) registry.register(t);
  return registry;
}

/** At most this many tool steps (model calls answered with tool calls) per run (spec: Tools). */
export const MAX_TOOL_STEPS = 25;
