import { memoryToolsFor, searchMemories, type MemoryRunOf } from '@/server/agent/runtime/tools/memory-tools';
import { searchContacts } from '@/server/agent/runtime/tools/resource-tools';
import { recallForRun } from '@/server/agent/runtime/memories';
import { loadChatSubject } from '@/server/agent/runtime/recall-subject';
import type { Db, Tx } from '@/db/client';
import { chatTaint } from '../taint';
import type { ChatRef } from './registry';

/* Memories and contacts in a chat: the task run's tools, with the chat as their subject. */

/** In a chat turn: what it saw is what recall shows for the chat's latest turn; its taint is the chat's. */
const chatRun: MemoryRunOf<ChatRef> = (db, actor, chat, now) => ({
  seen: async () => (await recallForRun(db as Db, actor, await loadChatSubject(db as Db, chat.id), now)).shownIds,
  taint: () => chatTaint(db as Tx, actor, chat),
});

const chatMemoryTools = memoryToolsFor(chatRun);

export const chatSaveMemory = chatMemoryTools.saveMemory;
export const chatSearchMemories = searchMemories;
export const chatUpdateMemory = chatMemoryTools.updateMemory;
export const chatForgetMemory = chatMemoryTools.forgetMemory;
export const chatSearchContacts = searchContacts;
