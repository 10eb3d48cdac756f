import WebSocket from 'ws';
import type { RealtimeConfig } from './config';
import { sessionUrl } from './config';
import { readServerEvent, type RealtimeServerEvent } from './events';

/*
 * One conversation with the realtime speech model over its WebSocket (OpenAI's Realtime API, or a
 * server that speaks it). The session is set up once (session.update): the instructions, G.711
 * μ-law both ways (Twilio's media stream is μ-law 8 kHz, so audio passes through untouched), the
 * server's voice activity detection, the caller's speech transcribed, the voice and the tools.
 * (The hosted app's live voice asks for 16-bit PCM at 24 kHz instead: SessionSetup.format.)
 * Then the caller's audio is appended as it arrives, and the model's events are handed to the
 * bridge as they come. The connection has a handshake deadline (STEWARD_REALTIME_CONNECT_MS,
 * default 10 s): a model server that never answers ends the call politely rather than holding it.
 */

export type RealtimeTool = { name: string; description: string; parameters: Record<string, unknown> };

export type SessionSetup = {
  instructions: string;
  voice: string | null;
  tools: RealtimeTool[];
  /** What the assistant says first (a response asked for at once), or null to wait for the caller. */
  greeting: string | null;
  /**
   * The audio both ways: G.711 μ-law 8 kHz (`pcmu`, a phone call's, the default) or 16-bit PCM,
   * mono, little-endian at 24 kHz (`pcm16`, OpenAI's `audio/pcm`: the hosted app's live voice).
   */
  format?: AudioFormat;
  /**
   * What was said before this conversation (the chat's recent messages, oldest first), given to
   * the model as conversation items once the session is set up: the person's (and, wrapped as
   * untrusted data, anyone else's) as `user` text, the assistant's as its own.
   */
  history?: HistoryItem[];
};

export type HistoryItem = { role: 'user' | 'assistant'; text: string };

/** A history line as the GA conversation.item.create takes it: `input_text` for the user, `output_text` for the assistant. */
export const historyItem = (h: HistoryItem) => ({
  type: 'conversation.item.create',
  item: { type: 'message', role: h.role, content: [{ type: h.role === 'user' ? 'input_text' : 'output_text', text: h.text }] },
});

export type AudioFormat = 'pcmu' | 'pcm16';

/** The format as the session names it (GA shape: `audio/pcm` takes only a 24 kHz rate). */
export const formatOf = (f: AudioFormat = 'pcmu') => (f === 'pcm16' ? { type: 'audio/pcm', rate: 24_000 } : { type: 'audio/pcmu' });

export type RealtimeSession = {
  appendAudio: (payload: string) => void;
  /** Barge-in: the response being spoken is stopped. */
  cancelResponse: () => void;
  /** A function call's result goes back to the model, which then answers. */
  sendFunctionOutput: (callId: string, output: unknown) => void;
  /** Asks the model to speak now, with these instructions for this response only. */
  respond: (instructions: string) => void;
  close: () => void;
};

const connectMs = (env: Record<string, string | undefined> = process.env) => {
  const n = Number(env.STEWARD_REALTIME_CONNECT_MS);
  return Number.isFinite(n) && n >= 100 && n <= 60_000 ? n : 10_000;
};

export function sessionUpdate(config: RealtimeConfig, setup: SessionSetup) {
  return {
    type: 'session.update',
    session: {
      type: 'realtime',
      model: config.model,
      instructions: setup.instructions,
      output_modalities: ['audio'],
      audio: {
        input: {
          format: formatOf(setup.format),
          transcription: { model: config.transcribeModel },
          turn_detection: { type: 'server_vad', create_response: true, interrupt_response: true },
        },
        output: { format: formatOf(setup.format), ...(setup.voice ?? config.voice ? { voice: setup.voice ?? config.voice } : {}) },
      },
      tools: setup.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters })),
      tool_choice: 'auto',
    },
  };
}

/** Opens the session and configures it; events reach `onEvent` in order; `onClose` once, however it ends. */
export function openRealtimeSession(
  config: RealtimeConfig,
  setup: SessionSetup,
  onEvent: (e: RealtimeServerEvent) => void,
  onClose: (reason: string) => void,
): Promise<RealtimeSession> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(sessionUrl(config), {
      headers: config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {},
      handshakeTimeout: connectMs(),
      maxPayload: 4 * 1024 * 1024,
    });
    let opened = false;
    let closed = false;
    const send = (event: unknown) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(event));
    };
    const end = (reason: string) => {
      if (closed) return;
      closed = true;
      if (opened) onClose(reason);
      else reject(new Error(reason));
    };
    ws.on('open', () => {
      opened = true;
      send(sessionUpdate(config, setup));
      for (const h of setup.history ?? []) send(historyItem(h));
      if (setup.greeting) send({ type: 'response.create', response: { instructions: setup.greeting } });
      resolve({
        appendAudio: (payload) => send({ type: 'input_audio_buffer.append', audio: payload }),
        cancelResponse: () => send({ type: 'response.cancel' }),
        sendFunctionOutput: (callId, output) => {
          send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output: JSON.stringify(output) } });
          send({ type: 'response.create' });
        },
        respond: (instructions) => send({ type: 'response.create', response: { instructions } }),
        close: () => {
          if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000, 'call ended');
        },
      });
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const e = readServerEvent(data.toString());
      if (e) onEvent(e);
    });
    ws.on('error', (err) => end(`the realtime model could not be reached: ${err.message}`));
    ws.on('close', (code) => end(`the realtime model closed the session (${code})`));
  });
}
