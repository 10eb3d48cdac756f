import { errorFrom, StewardError } from './errors.js';
import { sseFrames } from './sse.js';

/** A chat message as the `message` event carries it (GET /chats/{chatId}/messages has the same). */
export type ChatMessage = { id: string; role: string; content: string; [field: string]: unknown };

type Frame<E extends string, D> = { event: E; id: string | null; data: D };

/**
 * The events of one chat turn (spec 4, "Chat stream framing"). `status_update` and
 * `interim_message` come while the turn runs; it ends with exactly one `message` or `error`
 * (an `error` still arrives with HTTP 200, e.g. `model_not_configured`). Kinds this client does
 * not know yet are skipped, so a newer server does not break it.
 */
export type ChatStreamEvent =
  | Frame<
      'status_update',
      {
        /** `queued` (event 1, with executionId, chatId, messageId), `running`, `thinking`, `tool_calls`, `tool_result`, `restarted`. */
        state: string;
        executionId?: string;
        chatId?: string;
        messageId?: string;
        step?: number;
        tools?: string[];
        tool?: string;
        callId?: string;
        ok?: boolean;
        taskId?: string;
        supersedesFrom?: number;
        [field: string]: unknown;
      }
    >
  /** The next piece of the text of model call `step`: a live preview; the `message` event has the whole reply. */
  | Frame<'interim_message', { step: number; delta: string; [field: string]: unknown }>
  | Frame<'message', { message: ChatMessage; taskIds: string[] }>
  | Frame<'error', { code: string; message: string }>;

const KINDS = new Set(['status_update', 'interim_message', 'message', 'error']);
const FINAL = new Set(['message', 'error']);

export type ChatProcessBody = {
  message?: { content: string; [field: string]: unknown } | null;
  triggeringActivityId?: string;
  [field: string]: unknown;
};

export type StreamOptions = {
  signal?: AbortSignal;
  /** Reconnections in a row without a new event before giving up (default 5). */
  reconnects?: number;
};

/** What the stream needs from the client: a sender that authenticates and retries, and a clock. */
export type StreamTransport = {
  send: (method: 'GET' | 'POST', path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }) => Promise<Response>;
  sleep: (ms: number, signal?: AbortSignal | null) => Promise<void>;
};

const interrupted = (message: string) => new StewardError({ status: 0, code: 'stream_interrupted', message, requestId: null });

async function opened(res: Response): Promise<ReadableStream<Uint8Array>> {
  if (!res.ok) throw await errorFrom(res);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream') || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new StewardError({ status: res.status, code: 'not_a_stream', message: `Expected text/event-stream, got ${type || 'no body'}`, requestId: res.headers.get('x-request-id') });
  }
  return res.body;
}

function parsed(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/**
 * Yields the events of one turn from `first` (POST /chats/{chatId}/process); when the stream
 * breaks before the final event, resumes from GET /chats/{chatId}/runs/{executionId}/events with
 * `Last-Event-ID` set to the last id received, so every event is yielded once and in order. The
 * execution id is read from the first events (or the `X-Execution-Id` header).
 */
export async function* chatEvents(
  transport: StreamTransport,
  chatId: string,
  first: () => Promise<Response>,
  opts: StreamOptions & { executionId?: string; lastEventId?: string | null } = {},
): AsyncGenerator<ChatStreamEvent> {
  let executionId = opts.executionId ?? null;
  let lastId = opts.lastEventId ?? null;
  let failures = 0;
  let res = await first();
  for (;;) {
    const body = await opened(res);
    executionId ??= res.headers.get('x-execution-id');
    try {
      for await (const frame of sseFrames(body)) {
        if (frame.id !== null) lastId = frame.id;
        const data = parsed(frame.data);
        const named = data && typeof data === 'object' ? (data as { executionId?: unknown }).executionId : undefined;
        if (!executionId && typeof named === 'string') executionId = named;
        if (!KINDS.has(frame.event)) continue;
        failures = 0;
        yield { event: frame.event, id: frame.id, data } as ChatStreamEvent;
        if (FINAL.has(frame.event)) return;
      }
    } catch (e) {
      // A cut connection is what reconnecting is for; a stop the caller asked for is not.
      if (opts.signal?.aborted) throw e;
    }
    if (!executionId) throw interrupted('The stream ended before naming its execution; read the reply from GET /chats/{chatId}/messages');
    if (++failures > (opts.reconnects ?? 5)) throw interrupted(`The stream of execution ${executionId} kept breaking; read the reply from GET /chats/{chatId}/messages`);
    await transport.sleep(Math.min(5_000, 200 * 2 ** (failures - 1)), opts.signal);
    const path = `/chats/${encodeURIComponent(chatId)}/runs/${encodeURIComponent(executionId)}/events`;
    res = await transport.send('GET', path, {
      headers: { Accept: 'text/event-stream', ...(lastId !== null ? { 'Last-Event-ID': lastId } : {}) },
      signal: opts.signal,
    });
  }
}
