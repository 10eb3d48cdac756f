import {
  FORGET_MEMORY_DESCRIPTION,
  ForgetMemoryInput,
  forgetMemoryAs,
  SAVE_MEMORY_DESCRIPTION,
  SaveMemoryInput,
  saveMemoryAs,
  SEARCH_MEMORIES_DESCRIPTION,
  SearchMemoriesInput,
  searchMemoriesAs,
  UPDATE_MEMORY_DESCRIPTION,
  UpdateMemoryInput,
  updateMemoryAs,
  type MemoryRun,
} from '@/server/agent/runtime/tools/memory-tools';
import { SEARCH_CONTACTS_DESCRIPTION, SearchContactsInput, searchContactsAs } from '@/server/agent/runtime/tools/resource-tools';
import { recallForRun } from '@/server/agent/runtime/memories';
import { loadChatSubject } from '@/server/agent/runtime/recall-subject';
import type { Db, Tx } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { chatTaint } from '../taint';
import { defineChatTool, type ChatRef } from './registry';

/* Memories and contacts in a chat: the same effects as the task tools, as the chat's owner. */

/** In a chat turn: what it saw is what recall shows for the chat's latest turn; its taint is the chat's. */
const chatRun = (db: Tx, actor: UserActor, chat: ChatRef, now: Date): MemoryRun => ({
  seen: async () => (await recallForRun(db as Db, actor, await loadChatSubject(db as Db, chat.id), now)).shownIds,
  taint: () => chatTaint(db, actor, chat),
});

export const chatSaveMemory = defineChatTool({
  name: 'save_memory',
  description: SAVE_MEMORY_DESCRIPTION,
  input: SaveMemoryInput,
  handler: (db, actor, chat, input, run) => saveMemoryAs(db, actor, input, chatRun(db, actor, chat, run.now)),
});

export const chatSearchMemories = defineChatTool({
  name: 'search_memories',
  description: SEARCH_MEMORIES_DESCRIPTION,
  input: SearchMemoriesInput,
  handler: (db, actor, _chat, input) => searchMemoriesAs(db, actor, input),
});

export const chatUpdateMemory = defineChatTool({
  name: 'update_memory',
  description: UPDATE_MEMORY_DESCRIPTION,
  input: UpdateMemoryInput,
  handler: (db, actor, chat, input, run) => updateMemoryAs(db, actor, input, chatRun(db, actor, chat, run.now)),
});

export const chatForgetMemory = defineChatTool({
  name: 'forget_memory',
  description: FORGET_MEMORY_DESCRIPTION,
  input: ForgetMemoryInput,
  handler: (db, actor, chat, input, run) => forgetMemoryAs(db, actor, input, chatRun(db, actor, chat, run.now)),
});

export const chatSearchContacts = defineChatTool({
  name: 'search_contacts',
  description: SEARCH_CONTACTS_DESCRIPTION,
  input: SearchContactsInput,
  handler: (db, actor, _chat, input) => searchContactsAs(db, actor, input),
});
