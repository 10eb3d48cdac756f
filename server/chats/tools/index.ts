import { ChatToolRegistry } from './registry';
import { chatForgetMemory, chatSaveMemory, chatSearchContacts, chatSearchMemories, chatUpdateMemory } from './resource-tools';
import { chatCreateTask } from './task-tool';
import { chatReadFile } from '@/server/agent/runtime/tools/file-tools';

/** The tools of a chat turn: opening tasks, memories and contacts (the staging and waiting tools belong to tasks). */
export const chatTools = () => new ChatToolRegistry([chatCreateTask, chatSaveMemory, chatSearchMemories, chatUpdateMemory, chatForgetMemory, chatSearchContacts, chatReadFile]);

/** At most this many model calls answered with tool calls per turn, as for a task run. */
export const MAX_CHAT_TOOL_STEPS = 25;
