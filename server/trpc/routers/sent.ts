import { z } from 'zod';
import { CartParams } from '@/server/approvals/contracts';
import { listSentCarts } from '@/server/approvals/sent';
import { listSnapshots } from '@/server/approvals/service';
import { undoDispatch } from '@/server/approvals/undo';
import { router, userProcedure } from '../init';

const Dispatch = CartParams.extend({ index: z.number().int().min(0).max(99_999) });

/** "Sent": what the assistants released, each action's snapshot (GET /portal/carts/{id}/snapshots), and undo while its window is open. */
export const sentRouter = router({
  list: userProcedure.input(z.object({ limit: z.number().int().min(1).max(100).default(30) }).prefault({})).query(({ ctx, input }) => listSentCarts(ctx.db, ctx.actor, input.limit)),
  snapshots: userProcedure.input(CartParams).query(({ ctx, input }) => listSnapshots(ctx.db, ctx.actor, input.cartId)),
  undo: userProcedure.input(Dispatch).mutation(({ ctx, input }) => undoDispatch(ctx.db, ctx.actor, input.cartId, input.index)),
});
