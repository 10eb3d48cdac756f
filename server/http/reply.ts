import { AppError, BareRefusal, databaseRefusal } from './errors';

/** A serialized answer: status, headers and body text. */
export class TextReply {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {}
}

/** A reply with a status other than the endpoint's default, or extra headers. */
export class Reply<T = unknown> {
  constructor(
    readonly status: number,
    readonly body: T,
    readonly headers: Record<string, string> = {},
  ) {}
}
export const reply = <T>(status: number, body: T, headers?: Record<string, string>) => new Reply(status, body, headers);

/**
 * The kernel's answer: serialized text, or a Response a handler built itself. A Response's body
 * may be a stream (server-sent events); both HTTP paths pass it on as it is produced.
 */
export type ApiReply = TextReply | Response;

export function json(status: number, body: unknown, headers?: Record<string, string>): TextReply {
  // Without extra headers, no spread: this runs on every answer.
  const all = headers ? { 'Content-Type': 'application/json; charset=utf-8', ...headers } : { 'Content-Type': 'application/json; charset=utf-8' };
  return new TextReply(status, all, JSON.stringify(body));
}

export function toResponse(reply: ApiReply): Response {
  if (reply instanceof Response) return reply;
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

/** Any failure as the API answers it: AppError and database refusals in the error shape, anything else a 500 without internals. */
export function errorResponse(e: unknown, log: { error: (o: object, m: string) => void }): ApiReply {
  if (e instanceof BareRefusal) return json(e.status, e.body, e.headers);
  if (!(e instanceof AppError)) e = databaseRefusal(e) ?? e;
  if (e instanceof AppError) {
    const headers: Record<string, string> = e.status === 405 ? { Allow: String(e.extra.allow ?? '') } : {};
    // A refused send (rate-limit.ts, sendRefused): `retryAfter` is the Unix time to retry at; the header says how many seconds until then.
    if (e.status === 429 && typeof e.extra.retryAfter === 'number') headers['Retry-After'] = String(Math.max(1, e.extra.retryAfter - Math.floor(Date.now() / 1000)));
    return json(e.status, { ok: false, status: e.status, error_code: e.code, error: e.message, ...e.extra }, headers);
  }
  log.error({ err: e }, 'unexpected failure');
  return json(500, { ok: false, status: 500, error_code: 'server_error', error: 'Unexpected failure; retry with exponential backoff' });
}
