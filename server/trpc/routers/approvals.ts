import { z } from 'zod';
import { ApproveCartBody, CancelCartBody, CartParams, InlineEditBody, ListCartsQuery } from '@/server/approvals/contracts';
import { editDispatch } from '@/server/approvals/edits';
import { previewRejectLink, rejectByLink, RejectToken } from '@/server/approvals/reject-link';
import { approveCart, cancelCart, getCart, listCarts } from '@/server/approvals/service';
import { publicProcedure, router, userProcedure } from '../init';

const Dispatch = CartParams.extend({ index: z.number().int().min(0).max(99_999) });
const Token = z.object({ token: RejectToken });

/**
 * The approvals page (/approvals): the same services as /portal/carts with the session's user,
 * whose actor is a person (approve, cancel and edit need one). The reject link's two calls take
 * the token instead of a session: it is what the email gave its owner.
 */
export const approvalsRouter = router({
  list: userProcedure.input(ListCartsQuery.prefault({})).query(({ ctx, input }) => listCarts(ctx.db, ctx.actor, input)),
  get: userProcedure.input(CartParams).query(({ ctx, input }) => getCart(ctx.db, ctx.actor, input.cartId)),
  approve: userProcedure.input(CartParams.extend(ApproveCartBody.shape)).mutation(({ ctx, input: { cartId, ...body } }) => approveCart(ctx.db, ctx.actor, cartId, body)),
  cancel: userProcedure.input(CartParams.extend(CancelCartBody.shape)).mutation(({ ctx, input: { cartId, ...body } }) => cancelCart(ctx.db, ctx.actor, cartId, body)),
  /** Inline edit of the text: subject and body only (the page offers nothing else); the subject is one line. */
  edit: userProcedure
    .input(Dispatch.extend(InlineEditBody.shape))
    .mutation(({ ctx, input: { cartId, index, subject, body } }) => editDispatch(ctx.db, ctx.actor, cartId, index, { subject, body })),
  /** What a reject link would reject, or why it cannot; reading changes nothing. */
  rejectPreview: publicProcedure.input(Token).query(({ ctx, input }) => previewRejectLink(ctx.db, ctx.account.id, input.token)),
  /** The reject page's button (a same-origin JSON POST): the cart becomes `rejected`, once. */
  reject: publicProcedure.input(Token).mutation(({ ctx, input }) => rejectByLink(ctx.db, ctx.account.id, input.token)),
});
