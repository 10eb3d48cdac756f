import { HandoffParams } from '@/server/workspace/handoffs/contracts';
import { listActiveHandoffs, openSession } from '@/server/workspace/handoffs/service';
import { router, userProcedure } from '../init';

/** The user's open handoffs, and a fresh single-use session link to open one in the live view (/handoffs/{id}). */
export const handoffsRouter = router({
  list: userProcedure.query(({ ctx }) => listActiveHandoffs(ctx.db, ctx.actor)),
  session: userProcedure.input(HandoffParams).mutation(({ ctx, input }) => openSession(ctx.db, ctx.actor, input.handoffId)),
});
