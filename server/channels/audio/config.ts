/*
 * The speech provider (spec 5, Providers: Speech): an OpenAI-compatible audio API at
 * STEWARD_AUDIO_BASE_URL (default STEWARD_MODEL_BASE_URL), `/audio/transcriptions` with
 * STEWARD_AUDIO_TRANSCRIBE_MODEL and `/audio/speech` with STEWARD_AUDIO_SPEECH_MODEL. The key is
 * the model server's (STEWARD_MODEL_API_KEY), or STEWARD_AUDIO_API_KEY when the audio server is
 * another one. Each half is on only when its model is named: a model server that speaks no audio
 * is never asked. The base URL is the operator's own setting, as the model's is (no address rule).
 */

export type AudioConfig = {
  baseUrl: string;
  apiKey: string | null;
  /** Null: transcription is off. */
  transcribeModel: string | null;
  /** Null: speech is off. */
  speechModel: string | null;
  /** The voices `/audio/speech` takes (STEWARD_AUDIO_VOICES, comma-separated; OpenAI's by default), the first the default. */
  voices: string[];
  /** What `/audio/speech` answers with (STEWARD_AUDIO_SPEECH_FORMAT: wav, mp3, opus, aac, flac; wav by default: no encoding on the server's side). */
  speechFormat: 'wav' | 'mp3' | 'opus' | 'aac' | 'flac';
};

/** OpenAI's voices for /audio/speech (tts-1, gpt-4o-mini-tts). */
export const OPENAI_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse'];
const FORMATS = ['wav', 'mp3', 'opus', 'aac', 'flac'] as const;

const setting = (v: string | undefined) => (v?.trim() ? v.trim() : null);

/** An http(s) URL without credentials, query or fragment, with no trailing slash; null otherwise. */
function baseUrlOf(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.search || u.hash) return null;
    return u.toString().replace(/\/+$/, '');
  } catch {
    return null;
  }
}

export function audioConfig(env: Record<string, string | undefined> = process.env): AudioConfig | null {
  const own = setting(env.STEWARD_AUDIO_BASE_URL);
  const baseUrl = baseUrlOf(own ?? setting(env.STEWARD_MODEL_BASE_URL));
  const transcribeModel = setting(env.STEWARD_AUDIO_TRANSCRIBE_MODEL);
  const speechModel = setting(env.STEWARD_AUDIO_SPEECH_MODEL);
  if (!baseUrl || (!transcribeModel && !speechModel)) return null;
  const voices = (setting(env.STEWARD_AUDIO_VOICES)?.split(',') ?? OPENAI_VOICES).map((v) => v.trim()).filter(Boolean);
  const format = setting(env.STEWARD_AUDIO_SPEECH_FORMAT)?.toLowerCase();
  return {
    baseUrl,
    apiKey: setting(env.STEWARD_AUDIO_API_KEY) ?? setting(env.STEWARD_MODEL_API_KEY),
    transcribeModel,
    speechModel,
    voices: voices.length ? voices : OPENAI_VOICES,
    speechFormat: (FORMATS as readonly string[]).includes(format ?? '') ? (format as AudioConfig['speechFormat']) : 'wav',
  };
}
