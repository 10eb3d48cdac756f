import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { actsAsUser } from '@/server/access/actor';
import { AppError, databaseRefusal, killSwitchEngaged } from '@/server/http/errors';
import type { PortalContext } from './context';

const CODES: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  423: 'FORBIDDEN',
  428: 'PRECONDITION_REQUIRED',
  429: 'TOO_MANY_REQUESTS',
  // A provider behind the procedure failed (live voice's audio API) or is not set up: not Steward's own fault.
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The hosted app's tRPC: procedures call the same services as the REST API with the session's
 * actor. Domain errors keep the REST error_code (sso_required, account_blocked...) in `data`.
 */
const t = initTRPC.context<PortalContext>().create({
  errorFormatter({ shape, error }) {
    const app = error.cause instanceof AppError ? error.cause : null;
    const zod = error.cause instanceof ZodError ? error.cause : null;
    return {
      ...shape,
      message: app ? app.message : zod ? zod.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') : shape.message,
      data: { ...shape.data, error_code: app?.code ?? null, status: app?.status ?? shape.data.httpStatus },
    };
  },
});

/**
 * AppErrors keep their HTTP meaning; a PostgreSQL refusal (a concurrent duplicate, a value the
 * column cannot hold) becomes the AppError REST answers with, so it is a CONFLICT or BAD_REQUEST
 * rather than an INTERNAL_SERVER_ERROR.
 */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const raw = result.error.cause;
    const cause = raw instanceof AppError ? raw : databaseRefusal(raw);
    if (cause) throw new TRPCError({ code: CODES[cause.status] ?? 'INTERNAL_SERVER_ERROR', message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
/** Anyone on a hosted domain (the sign-in page). */
export const publicProcedure = t.procedure.use(mapErrors);
/** A signed-in person; their actor is a user-level actor, so services apply user rules. */
export const userProcedure = publicProcedure.use(({ ctx, next }) => {
  const actor = ctx.actor;
  if (!actor || !actsAsUser(actor)) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in first' });
  return next({ ctx: { ...ctx, actor } });
});

/**
 * A signed-in person doing work the account kill switch stops (creating, running or messaging a
 * task, approving a proposed one): 423 KILL_SWITCH_ENGAGED while it is on, as the REST endpoints
 * marked `killSwitch` answer. The kernel checks that flag for REST; tRPC checks it here.
 */
export const liveUserProcedure = userProcedure.use(({ ctx, next }) => {
  if (ctx.actor.account.killSwitch) throw new TRPCError({ code: 'FORBIDDEN', message: 'The account is frozen', cause: killSwitchEngaged() });
  return next();
});
