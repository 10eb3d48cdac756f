'use server';
import { headers } from 'next/headers';
import { TRPCError } from '@trpc/server';
import { RejectToken } from '@/server/approvals/reject-link';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { composeRuntime } from '@/server/compose';
import { rejectCaller } from './caller';

// Rejecting wakes the task: the same serving composition as /api/trpc (server/trpc/handler.ts).
composeRuntime();

export type RejectOutcome = { ok: true } | { ok: false; message: string };

const INVALID = 'This reject link is not valid. Check that you opened the whole link from the email.';

/**
 * The reject button (a Server Action: a same-origin POST to the page itself, which Next.js
 * refuses from another origin). It goes through the same tRPC procedure as /api/trpc's
 * approvals.reject, with the caller the page uses: on the public origin shared by several
 * accounts no host selects the account, so /api/trpc could not answer for it; this can.
 */
export async function rejectWithLink(raw: unknown): Promise<RejectOutcome> {
  const token = RejectToken.safeParse(raw);
  if (!token.success) return { ok: false, message: INVALID };
  // Next.js compares Origin with the host already; the configured origin is checked as the tRPC handler does.
  const origin = (await headers()).get('origin');
  const caller = await rejectCaller(token.data);
  if (!caller) return { ok: false, message: INVALID };
  if (origin !== null && origin !== caller.ctx.site.origin) return { ok: false, message: 'Cross-site request refused' };
  try {
    await caller.api.approvals.reject({ token: token.data });
    return { ok: true };
  } catch (e) {
    const cause = e instanceof TRPCError ? e.cause : e;
    if (cause instanceof AppError) return { ok: false, message: cause.status === 404 ? INVALID : cause.message };
    logger.error({ err: e }, 'reject link: unexpected failure');
    return { ok: false, message: 'Something went wrong; nothing was rejected. Try again in a moment.' };
  }
}
