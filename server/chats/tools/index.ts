import { ToolRegistry } from '@/server/agent/runtime/tools/registry';
import type { ChatRef } from './registry';
import { chatForgetMemory, chatSaveMemory, chatSearchContacts, chatSearchMemories, chatUpdateMemory } from './resource-tools';
import { chatCreateTask } from './task-tool';
import { chatReadFile } from '@/server/agent/runtime/tools/file-tools';

/** The tools of a chat turn: opening tasks, memories and contacts (the staging and waiting tools belong to tasks). */
export const chatTools = () => new ToolRegistry<ChatRef>([chatCreateTask, chatSaveMemory, chatSearchMemories, chatUpdateMemory, chatForgetMemory, chatSearchContacts, chatReadFile]);

/** At most this many model calls answered with tool calls per turn: the agent loop's one number, as for a task run. */
export { MAX_TOOL_STEPS as MAX_CHAT_TOOL_STEPS } from '@/server/agent/runtime/tools/core';
