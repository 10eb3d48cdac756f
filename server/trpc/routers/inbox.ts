import { z } from 'zod';
import { CartParams } from '@/server/approvals/contracts';
import { approveCart } from '@/server/approvals/service';
import { AppError } from '@/server/http/errors';
import { router, userProcedure } from '../init';
import { needsMe, needsMeCount } from '../needs-me';

/** Each approval names the content the person saw (contentHash): a bulk approval is that many single ones. */
const ApproveMany = z.object({ items: z.array(CartParams.extend({ contentHash: z.string().min(1).max(200) })).min(1).max(100) });

/** The inbox (and home): what needs the person, most pressing first, and the count the navigation shows. */
export const inboxRouter = router({
  list: userProcedure.input(z.object({ limit: z.number().int().min(1).max(500).default(50) }).prefault({})).query(({ ctx, input }) => needsMe(ctx.db, ctx.actor, input.limit)),
  count: userProcedure.query(async ({ ctx }) => ({ total: await needsMeCount(ctx.db, ctx.actor) })),
  /**
   * Approve several carts at once (the inbox's bulk approve): one approveCart per cart with the
   * hash the person saw, each in its own transaction, so one that changed meanwhile (409) or
   * closed does not stop the others; each outcome is answered.
   */
  approveMany: userProcedure.input(ApproveMany).mutation(async ({ ctx, input }) => {
    const results: Array<{ cartId: string; ok: boolean; error_code: string | null; error: string | null }> = [];
    for (const { cartId, contentHash } of input.items) {
      try {
        await approveCart(ctx.db, ctx.actor, cartId, { contentHash });
        results.push({ cartId, ok: true, error_code: null, error: null });
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        results.push({ cartId, ok: false, error_code: e.code, error: e.message });
      }
    }
    return { ok: true as const, results };
  }),
});
