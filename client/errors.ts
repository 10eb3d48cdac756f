/**
 * Every non-2xx answer as one typed error. Steward's error shape is
 * `{ok:false, status, error_code, error}`; refusals before an endpoint runs are barer
 * (`{ok:false}` for an unknown key, `{ok:false, error, retryAfter}` when rate limited), so
 * `code` falls back to a name for the status.
 */
export class StewardError extends Error {
  override readonly name = 'StewardError';
  /** HTTP status. */
  readonly status: number;
  /** `error_code` of the body (`not_found`, `bad_request`, `KILL_SWITCH_ENGAGED`...), else `unauthorized`, `rate_limited` or `http_<status>`. */
  readonly code: string;
  /** The request's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | null;
  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | null;
  /** The parsed body (extra fields such as `fields`, `requiresOwnershipTransfer`), or its text. */
  readonly body: unknown;

  constructor(init: { status: number; code: string; message: string; requestId: string | null; retryAfter?: number | null; body?: unknown }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter ?? null;
    this.body = init.body;
  }
}

const FALLBACK_CODE: Record<number, string> = { 401: 'unauthorized', 429: 'rate_limited' };

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Builds the StewardError for an answer (reads the body; call once per response). */
export async function errorFrom(res: Response, nowMs = Date.now()): Promise<StewardError> {
  const text = await res.text().catch(() => '');
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (a proxy's error page): keep the text
  }
  return errorOf(res.status, res.headers, body, nowMs);
}

/** The StewardError for a status, headers and an already parsed body. */
export function errorOf(status: number, headers: Headers, body: unknown, nowMs = Date.now()): StewardError {
  const res = { status, headers };
  const fields = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const code = typeof fields.error_code === 'string' ? fields.error_code : (FALLBACK_CODE[res.status] ?? `http_${res.status}`);
  const message = typeof fields.error === 'string' ? fields.error : typeof fields.detail === 'string' ? fields.detail : `HTTP ${res.status}`;
  return new StewardError({
    status: res.status,
    code,
    message,
    requestId: res.headers.get('x-request-id'),
    retryAfter: retryAfterSeconds(res.headers.get('retry-after'), nowMs),
    body,
  });
}
