import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible Chat Completions server on loopback, for tests that drive the
 * real provider package over real HTTP. Each request takes the next queued script (else the
 * fallback); a script is a reply or a function of the request. Every request is recorded.
 *
 *   const llm = await startScriptedModel();
 *   llm.enqueue({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }, { text: 'done' });
 *   process.env.STEWARD_MODEL_BASE_URL = llm.baseUrl;   // http://127.0.0.1:<port>/v1
 *   ... llm.requests[0].body.model ...
 *
 * `/embeddings` is answered too, by a deterministic stand-in (bagOfWordsVector), never scripted.
 *
 * A held reply answers only when the test releases it (a model call in flight on purpose):
 *
 *   const held = llm.hold();
 *   llm.enqueue(held.script);
 *   const request = await held.arrived;   // the call is open now
 *   held.release({ text: 'late answer' }); // or: await held.abandoned (the client went away)
 */

export type ScriptedToolCall = { name: string; arguments: unknown; id?: string };

export type ScriptedUsage = {
  promptTokens: number;
  completionTokens: number;
  /** prompt_tokens_details.cached_tokens */
  cachedTokens?: number;
  /** Further fields merged into `usage` (e.g. a provider's own cache-write counters). */
  extra?: Record<string, unknown>;
};

export type ScriptedReply = {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default `{promptTokens: 10, completionTokens: 5}`; null sends no usage at all. */
  usage?: ScriptedUsage | null;
  /** Before the response starts (headers included). */
  delayMs?: number;
  /** Between streamed chunks. */
  chunkDelayMs?: number;
  /** Default: `tool_calls` with tool calls, else `stop`. */
  finishReason?: string;
  /** Answer with this HTTP error instead of a completion. */
  error?: { status: number; message?: string; body?: unknown };
};

export type ModelRequest = {
  seq: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, exactly as the client sent it. */
  body: any;
  model: string | undefined;
  messages: any[];
  tools: any[] | undefined;
  stream: boolean;
  includeUsage: boolean;
  /** True once the client closed the connection before the reply was complete (a killed caller, an aborted request). */
  abandoned: boolean;
};

export type Script = ScriptedReply | ((request: ModelRequest) => ScriptedReply | Promise<ScriptedReply>);

/** A script that keeps its request open until released. */
export type HeldReply = {
  /** Enqueue it (or call it from a script function) like any script; it holds one request. */
  script: (request: ModelRequest) => ScriptedReply | Promise<ScriptedReply>;
  /** Resolves with the request once it arrived and is being held. */
  arrived: Promise<ModelRequest>;
  /** Answers the held request (nothing is sent if its client already went away). */
  release: (reply: ScriptedReply) => void;
  /** Resolves once the held request's client closed the connection before an answer was sent. */
  abandoned: Promise<ModelRequest>;
};

export type ScriptedModel = {
  /** `http://127.0.0.1:<port>/v1`: what STEWARD_MODEL_BASE_URL or --base-url takes. */
  baseUrl: string;
  origin: string;
  requests: ModelRequest[];
  /** Scripts for the next requests, in order. */
  enqueue: (...scripts: Script[]) => void;
  /** What requests get once the queue is empty (default: a 500 naming the unscripted request). */
  setFallback: (script: Script | null) => void;
  /** Scripts still queued. */
  pending: () => number;
  /** A reply that answers only when the test releases it (see HeldReply). */
  hold: () => HeldReply;
  /** Forgets recorded requests and queued scripts. */
  reset: () => void;
  /**
   * Requests to `/embeddings` (not scripted: answered by `bagOfWordsVector`), recorded apart
   * from the chat requests. `failEmbeddings(n)` answers the next n with a 503.
   */
  embeddingRequests: { model: string | undefined; input: string[] }[];
  failEmbeddings: (times: number) => void;
  close: () => Promise<void>;
};

const PATHS = new Set(['/v1/chat/completions', '/chat/completions']);
const EMBEDDING_PATHS = new Set(['/v1/embeddings', '/embeddings']);
export const STAND_IN_DIMENSIONS = 256;

/**
 * The stand-in's embedding: a hashed bag of words (lower-cased words of two letters or more, a
 * trailing "s" dropped; each word adds ±1 to one of STAND_IN_DIMENSIONS components chosen by an
 * FNV-1a hash), scaled to unit length. Honest about what it is: texts sharing words are close,
 * texts sharing none are orthogonal; it knows no synonyms. Deterministic, so tests can say which
 * memory a query's vector finds.
 */
export function bagOfWordsVector(text: string, dims = STAND_IN_DIMENSIONS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []) {
    const word = raw.length > 3 && raw.endsWith('s') ? raw.slice(0, -1) : raw;
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
    v[h % dims] += h & 0x8000_0000 ? -1 : 1;
  }
  const norm = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startScriptedModel(options: { fallback?: Script } = {}): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const embeddingRequests: { model: string | undefined; input: string[] }[] = [];
  let failingEmbeddings = 0;
  let queue: Script[] = [];
  let fallback: Script | null = options.fallback ?? null;
  const sockets = new Set<import('node:net').Socket>();
  /** Called when a request's client goes away before its reply is complete. */
  const onAbandon = new WeakMap<ModelRequest, () => void>();

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted model failed: ${(e as Error).message}`, type: 'server_error' } });
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    const raw = await readBody(req);
    if (req.method === 'POST' && EMBEDDING_PATHS.has(path)) return embeddings(raw, res);
    if (req.method !== 'POST' || !PATHS.has(path)) {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendJson(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
    }
    const request: ModelRequest = {
      seq: requests.length,
      method: req.method,
      path,
      headers: req.headers,
      body,
      model: body?.model,
      messages: Array.isArray(body?.messages) ? body.messages : [],
      tools: body?.tools,
      stream: body?.stream === true,
      includeUsage: body?.stream_options?.include_usage === true,
      abandoned: false,
    };
    res.on('close', () => {
      if (res.writableFinished) return;
      request.abandoned = true;
      onAbandon.get(request)?.();
    });
    requests.push(request);
    const script = queue.shift() ?? fallback;
    const reply: ScriptedReply = !script
      ? { error: { status: 500, message: `scripted model: nothing scripted for request #${request.seq}` } }
      : typeof script === 'function'
        ? await script(request)
        : script;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if (reply.error) {
      return sendJson(res, reply.error.status, reply.error.body ?? { error: { message: reply.error.message ?? `scripted error ${reply.error.status}`, type: 'scripted_error' } });
    }
    const completion = completionOf(request, reply);
    if (!request.stream) return sendJson(res, 200, completion.whole);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunks = request.includeUsage && completion.usage ? [...completion.chunks, { ...completion.base, choices: [], usage: completion.usage }] : completion.chunks;
    for (const chunk of chunks) {
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    res.end('data: [DONE]\n\n');
  }

  /** OpenAI's embeddings wire format: `{input: string | string[], model}` → `{data[{index, embedding}], model, usage}`. */
  function embeddings(raw: string, res: ServerResponse) {
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendJson(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
    }
    const input: unknown[] = Array.isArray(body?.input) ? body.input : [body?.input];
    if (!input.length || input.some((t) => typeof t !== 'string')) return sendJson(res, 400, { error: { message: 'input: strings required', type: 'invalid_request_error' } });
    embeddingRequests.push({ model: body?.model, input: input as string[] });
    if (failingEmbeddings > 0) {
      failingEmbeddings--;
      return sendJson(res, 503, { error: { message: 'scripted embeddings outage', type: 'server_error' } });
    }
    const tokens = (input as string[]).reduce((n, t) => n + (t.match(/\S+/g)?.length ?? 0), 0);
    return sendJson(res, 200, {
      object: 'list',
      model: body?.model ?? 'scripted-embeddings',
      data: (input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: bagOfWordsVector(t) })),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    requests,
    enqueue: (...scripts) => void queue.push(...scripts),
    setFallback: (script) => void (fallback = script),
    pending: () => queue.length,
    hold: () => {
      let arrive!: (r: ModelRequest) => void;
      let abandon!: (r: ModelRequest) => void;
      let answer: ((reply: ScriptedReply) => void) | null = null;
      let early: ScriptedReply | null = null;
      const arrived = new Promise<ModelRequest>((r) => (arrive = r));
      const abandoned = new Promise<ModelRequest>((r) => (abandon = r));
      const script = (request: ModelRequest): ScriptedReply | Promise<ScriptedReply> => {
        onAbandon.set(request, () => abandon(request));
        if (request.abandoned) abandon(request);
        arrive(request);
        return early ?? new Promise<ScriptedReply>((r) => (answer = r));
      };
      return {
        script,
        arrived,
        abandoned,
        release: (reply) => {
          if (answer) answer(reply);
          else early = reply;
        },
      };
    },
    reset: () => {
      requests.length = 0;
      embeddingRequests.length = 0;
      failingEmbeddings = 0;
      queue = [];
    },
    embeddingRequests,
    failEmbeddings: (times) => void (failingEmbeddings = times),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function completionOf(request: ModelRequest, reply: ScriptedReply) {
  const id = `chatcmpl-scripted-${request.seq}`;
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model ?? 'scripted' };
  const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${request.seq}_${i}`,
    type: 'function' as const,
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
  }));
  const finishReason = reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop');
  const scripted = reply.usage === undefined ? { promptTokens: 10, completionTokens: 5 } : reply.usage;
  const usage = scripted
    ? {
        prompt_tokens: scripted.promptTokens,
        completion_tokens: scripted.completionTokens,
        total_tokens: scripted.promptTokens + scripted.completionTokens,
        prompt_tokens_details: { cached_tokens: scripted.cachedTokens ?? 0 },
        ...scripted.extra,
      }
    : null;

  const whole = {
    ...base,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.text ?? (toolCalls.length ? null : ''), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReason,
      },
    ],
    ...(usage ? { usage } : {}),
  };

  // Streamed the way OpenAI does: a role delta, text in small pieces, each tool call opened with
  // its id and name and its arguments in two fragments, then the finish reason.
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
  const chunks: unknown[] = [delta({ role: 'assistant', content: '' })];
  for (const piece of (reply.text ?? '').match(/[\s\S]{1,8}/g) ?? []) chunks.push(delta({ content: piece }));
  toolCalls.forEach((call, index) => {
    const args = call.function.arguments;
    const cut = Math.ceil(args.length / 2);
    chunks.push(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const part of [args.slice(0, cut), args.slice(cut)]) {
      if (part) chunks.push(delta({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  chunks.push(delta({}, finishReason));
  return { whole, chunks, base, usage };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
