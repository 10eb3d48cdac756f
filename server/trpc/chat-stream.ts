import { and, eq } from 'drizzle-orm';
import { sharedDatabase } from '@/db/client';
import { chatTurns } from '@/db/schema';
import { findChatForActor } from '@/server/chats/access';
import { sseEvent, tailTurn } from '@/server/chats/stream-tail';
import { ChatParams, ProcessChatBody, TurnParams } from '@/server/chats/turn-contracts';
import { startChatTurn } from '@/server/chats/turn-start';
import { eventStream } from '@/server/http/event-stream';
import { AppError, invalidFields, killSwitchEngaged, notFound, unauthorized } from '@/server/http/errors';
import { errorResponse, toResponse } from '@/server/http/reply';
import { withApiHeaders } from '@/server/http/response-headers';
import { decodeJsonBody, parseOrThrow } from '@/server/http/validate';
import { logger } from '@/server/logger';
import { composeRuntime } from '@/server/compose';
import { portalContext, type PortalContext } from './context';
import { crossSiteRefusal } from './csrf';

/*
 * The chat page's stream, for a signed-in person. The API's POST /api/chats/{chatId}/process and
 * GET /api/chats/{chatId}/runs/{executionId}/events take API credentials (the kernel never sees
 * the session cookie, server/credentials.ts); these two answer the same calls on the hosted
 * site, /chats/{chatId}/process and /chats/{chatId}/runs/{executionId}/events, with the session's
 * user, through the same chats services and the same SSE framing: event ids, replay after
 * Last-Event-ID, then the live rest (docs/chat-streaming.md).
 */

// A turn is handed to the durable engine: the same composition as the API's process call.
composeRuntime();

type Signed = { ctx: PortalContext & { actor: NonNullable<PortalContext['actor']> & { user: NonNullable<NonNullable<PortalContext['actor']>['user']> } } };

async function signedIn(req: Request): Promise<Signed | Response> {
  const ctx = await portalContext(sharedDatabase().db, req.headers);
  const refused = crossSiteRefusal(req, ctx.site);
  if (refused) return withApiHeaders(refused, ctx.site.secure);
  if (!ctx.actor?.user) throw unauthorized('Sign in first');
  return { ctx: ctx as Signed['ctx'] };
}

/** SSE answers are never cached, and no proxy or compressor may hold events back. */
function streamed(res: Response, secure: boolean): Response {
  const out = withApiHeaders(res, secure);
  out.headers.set('Cache-Control', 'no-store, no-transform');
  return out;
}

const failed = (e: unknown) => withApiHeaders(toResponse(errorResponse(e, logger)), false);

/** Last-Event-ID as a number (the header a reconnecting client sends); absent: from the first event. */
function resumeAfter(req: Request): number {
  const raw = new URL(req.url).searchParams.get('lastEventId') ?? req.headers.get('last-event-id');
  if (raw === null || raw.trim() === '') return 0;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 0) throw invalidFields([{ field: 'Last-Event-ID', problem: 'must be an event id (a whole number)' }]);
  return n;
}

/** POST /chats/{chatId}/process: saves the message, starts the turn, streams its events. */
export async function hostedChatProcess(req: Request, params: unknown): Promise<Response> {
  try {
    const signed = await signedIn(req);
    if (signed instanceof Response) return signed;
    const { ctx } = signed;
    // The REST endpoint is marked killSwitch: a frozen account starts no turn.
    if (ctx.actor.account.killSwitch) throw killSwitchEngaged();
    const { chatId } = parseOrThrow(ChatParams, params, 'path');
    const body = parseOrThrow(ProcessChatBody, decodeJsonBody(await req.arrayBuffer()), 'body');
    const { turn, first } = await startChatTurn(ctx.db, ctx.actor, chatId, body);
    return streamed(
      eventStream(req.signal, async (send) => {
        await send(sseEvent(first));
        await tailTurn(ctx.db, turn.id, first.seq, send, req.signal);
      }),
      ctx.site.secure,
    );
  } catch (e) {
    if (!(e instanceof AppError)) logger.error({ err: e }, 'hosted chat process failed');
    return failed(e);
  }
}

/** GET /chats/{chatId}/runs/{executionId}/events: the events after Last-Event-ID, then the live rest. */
export async function hostedTurnEvents(req: Request, params: unknown): Promise<Response> {
  try {
    const signed = await signedIn(req);
    if (signed instanceof Response) return signed;
    const { ctx } = signed;
    const { chatId, executionId } = parseOrThrow(TurnParams, params, 'path');
    const after = resumeAfter(req);
    const chat = await findChatForActor(ctx.db, ctx.actor, chatId);
    const [turn] = await ctx.db.select({ id: chatTurns.id }).from(chatTurns).where(and(eq(chatTurns.id, executionId), eq(chatTurns.chatId, chat.id)));
    if (!turn) throw notFound('Run');
    return streamed(
      eventStream(req.signal, async (send) => {
        await send({ comment: `events of ${turn.id} after ${after}` });
        await tailTurn(ctx.db, turn.id, after, send, req.signal);
      }),
      ctx.site.secure,
    );
  } catch (e) {
    return failed(e);
  }
}
