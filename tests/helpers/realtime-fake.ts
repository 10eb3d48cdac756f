import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { loudness, tone } from './mulaw';
import { loudnessPcm16, PCM16_BYTES_PER_MS, tonePcm16 } from './pcm16';
import { recordedWaits } from './recorded-waits';

/**
 * A loopback stand-in for an OpenAI Realtime-compatible WebSocket (OpenAI's "Realtime client
 * events" and "server events"), speaking its wire format: JSON events both ways, audio as base64
 * G.711 μ-law 8 kHz, or 16-bit PCM at 24 kHz when the session.update asks for `audio/pcm` (GA)
 * or `pcm16` (beta), each way as asked. It has a voice activity detector of its own (a frame is speech when it is loud):
 * input_audio_buffer.speech_started when the caller's audio gets loud, speech_stopped after
 * `vadSilenceMs` of quiet, then the caller's words (the next scripted transcript) as
 * conversation.item.input_audio_transcription.completed, and, after `modelDelayMs`, the next
 * scripted reply. A reply is spoken (response.output_audio.delta in 20 ms chunks, paced at
 * `paceMs` a chunk, then response.output_audio_transcript.done and response.done) or is a
 * function call (response.function_call_arguments.done), or words then a call; the reply after a
 * call waits for the client's function_call_output and response.create. response.cancel stops a reply being spoken
 * (response.done, status cancelled). The stand-in never cancels on its own when the caller talks
 * over it: that is the client's job, and it is recorded. Every response.done carries `usage`
 * (state.usage: input and output tokens, cached input in input_token_details), as OpenAI's does.
 * Message items the client adds (conversation.item.create with a `message`: the history before
 * the conversation) are recorded in order as `items` {role, text}.
 *
 * A process that cannot reach the stand-in's objects (the e2e server's Playwright specs) steers it
 * over HTTP on the same port: POST /control/replies {replies}, POST /control/transcripts
 * {texts}, POST /control/reset, GET /control/sessions (what each session was set up with and what
 * happened on it).
 */

/** A response: spoken words (with `audioMs` of audio), a function call, or both (the words first, as a model says goodbye and hangs up). */
export type RealtimeReply = { say?: string; audioMs?: number; call?: { name: string; arguments: unknown } };

export type FakeResponse = {
  trigger: 'response.create' | 'vad';
  /** performance.now() when the trigger happened (speech_stopped sent, or response.create read). */
  triggeredAt: number;
  firstAudioAt: number | null;
  reply: RealtimeReply | null;
  cancelled: boolean;
  done: boolean;
};

export type FakeSession = {
  url: string;
  authorization: string | null;
  events: Array<Record<string, any>>;
  updates: Array<Record<string, any>>;
  appendedBytes: number;
  speechStartedAt: number[];
  speechStoppedAt: number[];
  responses: FakeResponse[];
  cancels: number;
  functionOutputs: Array<{ callId: string; output: unknown }>;
  /** Message items the client created, in order (each content part's text joined). */
  items: Array<{ role: string; text: string; contentTypes: string[] }>;
  /** The audio each way, as the latest session.update asked (μ-law until told otherwise). */
  inputFormat: 'pcmu' | 'pcm16';
  outputFormat: 'pcmu' | 'pcm16';
  closed: boolean;
  close: () => void;
};

const nowMs = () => performance.now();
const DEFAULT_USAGE = { inputTokens: 120, outputTokens: 40, cachedTokens: 0 };
let ids = 0;
const id = (p: string) => `${p}_${Date.now().toString(36)}${(++ids).toString(36)}`;

export async function startRealtimeFake() {
  const state = {
    replies: [] as RealtimeReply[],
    callerTranscripts: [] as string[],
    /** The model's own time to think before a reply starts. */
    modelDelayMs: 0,
    /** Between audio chunks of a reply (20 ms of audio each): real time by default. */
    paceMs: 20,
    vadSilenceMs: 60,
    /** Loudness (RMS, linear) above which a frame is speech. */
    vadThreshold: 400,
    /** Refuse the next connection's handshake with this HTTP status. */
    refuseNext: null as number | null,
    /** What every response.done reports it used. */
    usage: { ...DEFAULT_USAGE },
  };
  const sessions: FakeSession[] = [];
  const { notify, until } = recordedWaits('realtime stand-in');

  const server = createServer((req, res) => {
    void control(req).then(
      (answer) => {
        res.writeHead(answer ? 200 : 426, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer ?? {}));
      },
      (err: Error) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: err.message }));
      },
    );
  });

  /** The HTTP steering of another process (see above); null: not a control path. */
  async function control(req: IncomingMessage): Promise<Record<string, unknown> | null> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/control/sessions') {
      return {
        sessions: sessions.map((x) => ({
          url: x.url,
          updates: x.updates,
          inputFormat: x.inputFormat,
          outputFormat: x.outputFormat,
          appendedBytes: x.appendedBytes,
          speechStarted: x.speechStartedAt.length,
          speechStopped: x.speechStoppedAt.length,
          cancels: x.cancels,
          responses: x.responses.map((r) => ({ trigger: r.trigger, say: r.reply?.say ?? null, cancelled: r.cancelled, done: r.done, audio: r.firstAudioAt !== null })),
          items: x.items,
          closed: x.closed,
        })),
      };
    }
    if (req.method !== 'POST' || !path.startsWith('/control/')) return null;
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const json = (body ? JSON.parse(body) : {}) as { replies?: RealtimeReply[]; texts?: string[] };
    if (path === '/control/replies') state.replies.push(...(json.replies ?? []));
    else if (path === '/control/transcripts') state.callerTranscripts.push(...(json.texts ?? []));
    else if (path === '/control/reset') reset();
    else return null;
    return { ok: true };
  }
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    if (state.refuseNext) {
      const status = state.refuseNext;
      state.refuseNext = null;
      socket.end(`HTTP/1.1 ${status} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req));
  });

  function serve(ws: WebSocket, req: IncomingMessage) {
    const s: FakeSession = {
      url: req.url ?? '',
      authorization: req.headers.authorization ?? null,
      events: [],
      updates: [],
      appendedBytes: 0,
      speechStartedAt: [],
      speechStoppedAt: [],
      responses: [],
      cancels: 0,
      functionOutputs: [],
      items: [],
      inputFormat: 'pcmu',
      outputFormat: 'pcmu',
      closed: false,
      close: () => ws.close(1011, 'stand-in closed'),
    };
    sessions.push(s);
    notify();
    const emit = (event: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event_id: id('event'), ...event }));
    };
    emit({ type: 'session.created', session: { id: id('sess'), type: 'realtime' } });

    let speaking = false;
    let quietMs = 0;
    let current: { r: FakeResponse; timer: ReturnType<typeof setTimeout> | null; id: string } | null = null;

    const finishCurrent = (status: 'completed' | 'cancelled') => {
      if (!current) return;
      const c = current;
      current = null;
      if (c.timer) clearTimeout(c.timer);
      c.r.done = true;
      c.r.cancelled = status === 'cancelled';
      const u = state.usage;
      const usage = { total_tokens: u.inputTokens + u.outputTokens, input_tokens: u.inputTokens, output_tokens: u.outputTokens, input_token_details: { cached_tokens: u.cachedTokens } };
      emit({ type: 'response.done', response: { id: c.id, object: 'realtime.response', status, usage } });
      notify();
    };

    const respond = (trigger: FakeResponse['trigger'], triggeredAt: number) => {
      const reply = state.replies.shift() ?? null;
      const r: FakeResponse = { trigger, triggeredAt, firstAudioAt: null, reply, cancelled: false, done: false };
      s.responses.push(r);
      notify();
      const start = () => {
        if (ws.readyState !== ws.OPEN) return;
        if (current) finishCurrent('cancelled');
        const responseId = id('resp');
        const itemId = id('item');
        current = { r, timer: null, id: responseId };
        emit({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress' } });
        if (!reply) return finishCurrent('completed');
        const callIfAny = () => {
          if (reply.call) emit({ type: 'response.function_call_arguments.done', response_id: responseId, item_id: id('item'), output_index: 1, call_id: id('call'), name: reply.call.name, arguments: JSON.stringify(reply.call.arguments) });
          finishCurrent('completed');
        };
        if (reply.say === undefined) return callIfAny();
        const pcm = s.outputFormat === 'pcm16';
        const audio = pcm ? tonePcm16(reply.audioMs ?? 400, 330) : tone(reply.audioMs ?? 400, 330);
        // 20 ms a chunk.
        const step = pcm ? 20 * PCM16_BYTES_PER_MS : 160;
        let offset = 0;
        const chunk = () => {
          if (!current || current.id !== responseId) return;
          if (offset >= audio.length) {
            emit({ type: 'response.output_audio_transcript.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, transcript: reply.say });
            return callIfAny();
          }
          const piece = audio.subarray(offset, offset + step);
          offset += step;
          if (r.firstAudioAt === null) r.firstAudioAt = nowMs();
          emit({ type: 'response.output_audio.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: piece.toString('base64') });
          current.timer = setTimeout(chunk, state.paceMs);
        };
        chunk();
      };
      if (state.modelDelayMs > 0) setTimeout(start, state.modelDelayMs);
      else start();
    };

    ws.on('message', (data) => {
      let e: Record<string, any>;
      try {
        e = JSON.parse(data.toString());
      } catch {
        return emit({ type: 'error', error: { type: 'invalid_request_error', message: 'not JSON' } });
      }
      if (e.type !== 'input_audio_buffer.append') s.events.push(e);
      if (e.type === 'session.update') {
        s.updates.push(e);
        const formatOf = (f: unknown, beta: unknown) => {
          const type = (f as { type?: unknown } | undefined)?.type;
          if (type === 'audio/pcm' || beta === 'pcm16') return 'pcm16' as const;
          if (type === 'audio/pcmu' || beta === 'g711_ulaw') return 'pcmu' as const;
          return null;
        };
        s.inputFormat = formatOf(e.session?.audio?.input?.format, e.session?.input_audio_format) ?? s.inputFormat;
        s.outputFormat = formatOf(e.session?.audio?.output?.format, e.session?.output_audio_format) ?? s.outputFormat;
        emit({ type: 'session.updated', session: e.session });
      } else if (e.type === 'input_audio_buffer.append') {
        const frame = Buffer.from(String(e.audio ?? ''), 'base64');
        s.appendedBytes += frame.length;
        const pcm = s.inputFormat === 'pcm16';
        const loud = (pcm ? loudnessPcm16(frame) : loudness(frame)) > state.vadThreshold;
        if (loud && !speaking) {
          speaking = true;
          quietMs = 0;
          s.speechStartedAt.push(nowMs());
          emit({ type: 'input_audio_buffer.speech_started', audio_start_ms: 0, item_id: id('item') });
        } else if (speaking && !loud) {
          quietMs += frame.length / (pcm ? PCM16_BYTES_PER_MS : 8);
          if (quietMs >= state.vadSilenceMs) {
            speaking = false;
            const at = nowMs();
            s.speechStoppedAt.push(at);
            const itemId = id('item');
            emit({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: 0, item_id: itemId });
            emit({ type: 'input_audio_buffer.committed', item_id: itemId });
            const words = state.callerTranscripts.shift();
            if (words !== undefined) emit({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript: words });
            notify();
            respond('vad', at);
          }
        } else if (loud) quietMs = 0;
      } else if (e.type === 'response.create') {
        respond('response.create', nowMs());
      } else if (e.type === 'response.cancel') {
        s.cancels++;
        if (current) finishCurrent('cancelled');
        else emit({ type: 'error', error: { type: 'invalid_request_error', code: 'response_cancel_not_active', message: 'Cancellation failed: no active response found' } });
        notify();
      } else if (e.type === 'conversation.item.create' && e.item?.type === 'function_call_output') {
        let output: unknown = e.item.output;
        try {
          output = JSON.parse(String(e.item.output));
        } catch {
          // kept as sent
        }
        s.functionOutputs.push({ callId: String(e.item.call_id), output });
        emit({ type: 'conversation.item.created', item: { id: id('item'), type: 'function_call_output', call_id: e.item.call_id } });
        notify();
      } else if (e.type === 'conversation.item.create' && e.item?.type === 'message') {
        const parts = (Array.isArray(e.item.content) ? e.item.content : []) as Array<{ type?: unknown; text?: unknown }>;
        s.items.push({ role: String(e.item.role), text: parts.map((p) => String(p.text ?? '')).join(''), contentTypes: parts.map((p) => String(p.type)) });
        emit({ type: 'conversation.item.created', item: { id: id('item'), type: 'message', role: e.item.role, content: parts } });
        notify();
      }
    });
    ws.on('close', () => {
      s.closed = true;
      if (current?.timer) clearTimeout(current.timer);
      current = null;
      notify();
    });
  }

  function reset() {
    state.replies.length = 0;
    state.callerTranscripts.length = 0;
    state.modelDelayMs = 0;
    state.paceMs = 20;
    state.refuseNext = null;
    state.usage = { ...DEFAULT_USAGE };
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/realtime`;


  return {
    url,
    state,
    sessions,
    until,
    env: () => ({ STEWARD_REALTIME_URL: url, STEWARD_REALTIME_MODEL: 'stand-in-realtime-1', STEWARD_REALTIME_API_KEY: 'rt-test-key' }),
    /** The HTTP origin of the control paths. */
    controlUrl: url.replace(/^ws:/, 'http:').replace(/\/v1\/realtime$/, ''),
    reset,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type RealtimeFake = Awaited<ReturnType<typeof startRealtimeFake>>;
