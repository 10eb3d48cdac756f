import { userCredits } from '@/server/budgets/credits';
import { router, userProcedure } from '../init';

/** What the person's assistants cost: every budget covering them with this period's figures (GET /credits). */
export const usageRouter = router({
  credits: userProcedure.query(({ ctx }) => userCredits(ctx.db, ctx.actor)),
});
