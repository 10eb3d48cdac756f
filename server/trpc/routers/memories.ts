import { CreateMemoryBody, ListMemoriesQuery, MemoryParams, SearchMemoriesQuery, UpdateMemoryBody } from '@/server/memories/contracts';
import { searchMemories } from '@/server/memories/search';
import { canChangeMemory, createMemory, deleteMemory, listMemories, updateMemory } from '@/server/memories/service';
import { router, userProcedure } from '../init';

/** Each memory with whether this person may change it (the service's rule: its author only). */
const withRights = <M extends { user: string }>(userId: string, memories: M[]) => memories.map((m) => ({ ...m, canChange: canChangeMemory(m, userId) }));

/**
 * The Memories page: what the assistant remembers about the person (their own and their teams'
 * shared memories), ranked search, and remembering, changing, pinning and forgetting one — the
 * same services as GET /memories, GET /memories/search, POST, PUT and DELETE /memories.
 */
export const memoriesRouter = router({
  list: userProcedure.input(ListMemoriesQuery.prefault({})).query(async ({ ctx, input }) => {
    const page = await listMemories(ctx.db, ctx.actor, input);
    return { ...page, memories: withRights(ctx.actor.user.id, page.memories) };
  }),
  search: userProcedure.input(SearchMemoriesQuery).query(async ({ ctx, input }) => {
    const found = await searchMemories(ctx.db, ctx.actor, input);
    return { ...found, memories: withRights(ctx.actor.user.id, found.memories) };
  }),
  create: userProcedure.input(CreateMemoryBody).mutation(({ ctx, input }) => createMemory(ctx.db, ctx.actor, input)),
  update: userProcedure.input(MemoryParams.extend({ change: UpdateMemoryBody })).mutation(({ ctx, input }) => updateMemory(ctx.db, ctx.actor, input.memoryId, input.change)),
  remove: userProcedure.input(MemoryParams).mutation(({ ctx, input }) => deleteMemory(ctx.db, ctx.actor, input.memoryId)),
});
