import { z } from 'zod';
import { router, userProcedure } from '../init';
import { needsMe, needsMeCount } from '../needs-me';

/** The home page's "what needs me" list (newest first) and the count the navigation shows. */
export const inboxRouter = router({
  list: userProcedure.input(z.object({ limit: z.number().int().min(1).max(500).default(50) }).prefault({})).query(({ ctx, input }) => needsMe(ctx.db, ctx.actor, input.limit)),
  count: userProcedure.query(async ({ ctx }) => ({ total: await needsMeCount(ctx.db, ctx.actor) })),
});
