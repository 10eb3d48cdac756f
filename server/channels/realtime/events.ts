import { z } from 'zod';

/*
 * The server events of an OpenAI Realtime-compatible WebSocket that a call needs (OpenAI's
 * "Realtime server events" reference), checked with Zod. Both spellings of the audio events are
 * read: the GA names (response.output_audio.delta, response.output_audio_transcript.done) and the
 * beta ones (response.audio.delta, response.audio_transcript.done) that compatible servers still
 * speak. Anything else is ignored.
 */

const Base = z.object({ type: z.string(), event_id: z.string().optional() }).loose();

export const AudioDelta = Base.extend({ response_id: z.string().optional(), item_id: z.string().optional(), delta: z.string() });
export const TranscriptDone = Base.extend({ item_id: z.string().optional(), transcript: z.string() });
export const FunctionCallDone = Base.extend({ call_id: z.string().min(1).max(200), name: z.string().min(1).max(200), arguments: z.string().max(100_000) });
export const ResponseDone = Base.extend({
  response: z
    .object({
      id: z.string().optional(),
      status: z.string().optional(),
      usage: z
        .object({
          input_tokens: z.number().optional(),
          output_tokens: z.number().optional(),
          input_token_details: z.object({ cached_tokens: z.number().optional() }).loose().nullish(),
        })
        .loose()
        .nullish(),
    })
    .loose()
    .optional(),
});
export const ErrorEvent = Base.extend({ error: z.object({ message: z.string().optional(), code: z.string().nullish(), type: z.string().optional() }).loose() });

export type RealtimeServerEvent =
  | { kind: 'audio'; delta: string; responseId: string | null }
  | { kind: 'speech_started' }
  | { kind: 'speech_stopped' }
  | { kind: 'caller_transcript'; text: string }
  | { kind: 'assistant_transcript'; text: string }
  | { kind: 'function_call'; callId: string; name: string; arguments: string }
  | { kind: 'response_created' }
  | { kind: 'response_done'; status: string | null; usage: RealtimeUsage | null }
  | { kind: 'error'; message: string; code: string | null }
  | { kind: 'other'; type: string };

/**
 * A response's tokens as the model reported them (response.done's `usage`): `inputTokens` counts
 * everything the response read, `cachedTokens` (input_token_details.cached_tokens) the part of it
 * served from the model's cache. Audio and text tokens are not told apart.
 */
export type RealtimeUsage = { inputTokens: number; outputTokens: number; cachedTokens: number };

const count = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/** One frame from the model server, as the bridge reads it (null: not JSON, ignored). */
export function readServerEvent(raw: string): RealtimeServerEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const base = Base.safeParse(json);
  if (!base.success) return null;
  const type = base.data.type;
  switch (type) {
    case 'response.output_audio.delta':
    case 'response.audio.delta': {
      const e = AudioDelta.safeParse(json);
      return e.success ? { kind: 'audio', delta: e.data.delta, responseId: e.data.response_id ?? null } : null;
    }
    case 'input_audio_buffer.speech_started':
      return { kind: 'speech_started' };
    case 'input_audio_buffer.speech_stopped':
      return { kind: 'speech_stopped' };
    case 'conversation.item.input_audio_transcription.completed': {
      const e = TranscriptDone.safeParse(json);
      return e.success ? { kind: 'caller_transcript', text: e.data.transcript } : null;
    }
    case 'response.output_audio_transcript.done':
    case 'response.audio_transcript.done': {
      const e = TranscriptDone.safeParse(json);
      return e.success ? { kind: 'assistant_transcript', text: e.data.transcript } : null;
    }
    case 'response.function_call_arguments.done': {
      const e = FunctionCallDone.safeParse(json);
      return e.success ? { kind: 'function_call', callId: e.data.call_id, name: e.data.name, arguments: e.data.arguments } : null;
    }
    case 'response.created':
      return { kind: 'response_created' };
    case 'response.done': {
      const e = ResponseDone.safeParse(json);
      const u = e.success ? e.data.response?.usage : null;
      const usage = u ? { inputTokens: count(u.input_tokens), outputTokens: count(u.output_tokens), cachedTokens: Math.min(count(u.input_token_details?.cached_tokens), count(u.input_tokens)) } : null;
      return { kind: 'response_done', status: (e.success ? e.data.response?.status : null) ?? null, usage };
    }
    case 'error': {
      const e = ErrorEvent.safeParse(json);
      return { kind: 'error', message: (e.success ? e.data.error.message : null) ?? 'the realtime model reported an error', code: (e.success ? e.data.error.code : null) ?? null };
    }
    default:
      return { kind: 'other', type };
  }
}
