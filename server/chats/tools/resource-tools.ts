import {
  SAVE_MEMORY_DESCRIPTION,
  SEARCH_CONTACTS_DESCRIPTION,
  SEARCH_MEMORIES_DESCRIPTION,
  SaveMemoryInput,
  SearchContactsInput,
  SearchMemoriesInput,
  saveMemoryAs,
  searchContactsAs,
  searchMemoriesAs,
} from '@/server/agent/runtime/tools/resource-tools';
import { chatTaint } from '../taint';
import { defineChatTool } from './registry';

/* Memories and contacts in a chat: the same effects as the task tools, as the chat's owner. */

export const chatSaveMemory = defineChatTool({
  name: 'save_memory',
  description: SAVE_MEMORY_DESCRIPTION,
  input: SaveMemoryInput,
  handler: async (db, actor, chat, input) => saveMemoryAs(db, actor, input, await chatTaint(db, actor, chat)),
});

export const chatSearchMemories = defineChatTool({
  name: 'search_memories',
  description: SEARCH_MEMORIES_DESCRIPTION,
  input: SearchMemoriesInput,
  handler: (db, actor, _chat, input) => searchMemoriesAs(db, actor, input),
});

export const chatSearchContacts = defineChatTool({
  name: 'search_contacts',
  description: SEARCH_CONTACTS_DESCRIPTION,
  input: SearchContactsInput,
  handler: (db, actor, _chat, input) => searchContactsAs(db, actor, input),
});
