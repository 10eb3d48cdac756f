/*
 * The realtime speech model (spec 6, Voice conversations): an OpenAI Realtime-compatible WebSocket
 * at STEWARD_REALTIME_URL (e.g. wss://api.openai.com/v1/realtime), model STEWARD_REALTIME_MODEL
 * (sent as the `model` query parameter, as OpenAI's endpoint takes it), key STEWARD_REALTIME_API_KEY
 * (default: the model server's key, STEWARD_MODEL_API_KEY). Without a URL and a model, calls keep
 * the TwiML turns (<Gather>/<Say>).
 */

export type RealtimeConfig = {
  url: string;
  model: string;
  apiKey: string | null;
  /** The voice when the assistant has no `openai` voice of its own (STEWARD_REALTIME_VOICE; null: the server's default). */
  voice: string | null;
  /** Transcription of the caller's speech (STEWARD_REALTIME_TRANSCRIBE_MODEL, default whisper-1): the transcript kept on the chat. */
  transcribeModel: string;
};

const trimmed = (v: string | undefined) => v?.trim() || null;

export function realtimeConfig(env: Record<string, string | undefined> = process.env): RealtimeConfig | null {
  const url = trimmed(env.STEWARD_REALTIME_URL);
  const model = trimmed(env.STEWARD_REALTIME_MODEL);
  if (!url || !model) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!['ws:', 'wss:'].includes(parsed.protocol)) return null;
  return {
    url: parsed.toString(),
    model,
    apiKey: trimmed(env.STEWARD_REALTIME_API_KEY) ?? trimmed(env.STEWARD_MODEL_API_KEY),
    voice: trimmed(env.STEWARD_REALTIME_VOICE),
    transcribeModel: trimmed(env.STEWARD_REALTIME_TRANSCRIBE_MODEL) ?? 'whisper-1',
  };
}

/** The session's address: the configured URL with `model` in its query (kept when the URL names one already). */
export function sessionUrl(c: RealtimeConfig): string {
  const u = new URL(c.url);
  if (!u.searchParams.has('model')) u.searchParams.set('model', c.model);
  return u.toString();
}
