import { defineEndpoint, reply } from '@/server/http/endpoint';
import {
  CreateMemoryBody,
  DeletedMemoryResponse,
  ListMemoriesQuery,
  ListMemoriesResponse,
  MemoryEnvelope,
  MemoryParams,
  SearchMemoriesQuery,
  SearchMemoriesResponse,
  UpdateMemoryBody,
} from './contracts';
import { searchMemories } from './search';
import { createMemory, deleteMemory, getMemory, listMemories, updateMemory } from './service';

const base = { auth: 'user' as const, tags: ['Memories'] };

export const memoryEndpoints = [
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/memories',
    summary: "The user's memories and their active teams' team memories, newest first",
    query: ListMemoriesQuery,
    response: ListMemoriesResponse,
    handle: ({ db, actor, query }) => listMemories(db, actor, query),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/memories/search',
    summary: "Ranked search of the user's and their active teams' memories, best first (full text and names; with embeddings configured, hybrid)",
    query: SearchMemoriesQuery,
    response: SearchMemoriesResponse,
    handle: ({ db, actor, query }) => searchMemories(db, actor, query),
  }),
  defineEndpoint({
    ...base,
    method: 'POST',
    path: '/memories',
    summary: 'Remember something (tags from the vocabulary; date-memory needs startDate)',
    body: CreateMemoryBody,
    response: MemoryEnvelope,
    status: 201,
    errors: [403, 404],
    handle: async ({ db, actor, body }) => reply(201, await createMemory(db, actor, body)),
  }),
  defineEndpoint({
    ...base,
    method: 'GET',
    path: '/memories/{memoryId}',
    summary: 'One memory',
    params: MemoryParams,
    response: MemoryEnvelope,
    errors: [404],
    handle: ({ db, actor, params }) => getMemory(db, actor, params.memoryId),
  }),
  defineEndpoint({
    ...base,
    method: 'PUT',
    path: '/memories/{memoryId}',
    summary: 'Change a memory (author only)',
    params: MemoryParams,
    body: UpdateMemoryBody,
    response: MemoryEnvelope,
    errors: [403, 404],
    handle: ({ db, actor, params, body }) => updateMemory(db, actor, params.memoryId, body),
  }),
  defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/memories/{memoryId}',
    summary: 'Delete a memory (author only)',
    params: MemoryParams,
    response: DeletedMemoryResponse,
    errors: [403, 404],
    handle: ({ db, actor, params }) => deleteMemory(db, actor, params.memoryId),
  }),
];
