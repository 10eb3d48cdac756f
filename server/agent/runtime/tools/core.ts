import { createSubtasks, createTask } from './delegation-tools';
import { saveMemory, searchContacts, searchMemories } from './resource-tools';
import { ToolRegistry } from './registry';
import { stagingTools } from './staging-tools';
import { askUser, completeTask, setAlarm, updatePlan } from './task-tools';
import { waitForReply } from './wait-tools';

/** The tools every task run has (spec: Tools); browser and MCP tools join them in their issues. */
export const coreTaskTools = () =>
  new ToolRegistry([
    askUser,
    waitForReply,
    setAlarm,
    updatePlan,
    completeTask,
    createTask,
    createSubtasks,
    saveMemory,
    searchMemories,
    searchContacts,
    ...stagingTools,
  ]);

/** At most this many tool steps (model calls answered with tool calls) per run (spec: Tools). */
export const MAX_TOOL_STEPS = 25;
