import type { AudioConfig } from './config';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';

/*
 * The two calls of the OpenAI audio API Steward makes: `POST {base}/audio/transcriptions`
 * (multipart: file, model, response_format=json → {text}) and `POST {base}/audio/speech` (JSON:
 * model, input, voice, response_format → the audio bytes). Each answers rather than throws; a
 * failure names the provider's reason (its text is outside content: shown, never obeyed).
 */

const TIMEOUT_MS = TOTAL_MS.audio;

export type Transcribed = { ok: true; text: string } | { ok: false; reason: string };
export type Spoken = { ok: true; bytes: Buffer; contentType: string } | { ok: false; reason: string };

const auth = (c: AudioConfig): Record<string, string> => (c.apiKey ? { Authorization: `Bearer ${c.apiKey}` } : {});

async function problem(res: Response): Promise<string> {
  const text = (await res.text().catch(() => '')).slice(0, 300);
  try {
    const message = (JSON.parse(text) as { error?: { message?: string } }).error?.message;
    if (message) return `the audio server answered ${res.status}: ${message.slice(0, 200)}`;
  } catch {
    // not JSON
  }
  return `the audio server answered ${res.status}`;
}

const EXTENSIONS: Record<string, string> = { 'audio/webm': 'webm', 'audio/ogg': 'ogg', 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mpeg': 'mp3', 'audio/mp4': 'm4a', 'audio/aac': 'aac', 'audio/flac': 'flac' };

export async function transcribe(c: AudioConfig, input: { audio: Buffer; mimeType: string; language?: string | null; signal?: AbortSignal }): Promise<Transcribed> {
  if (!c.transcribeModel) return { ok: false, reason: 'no transcription model is configured (STEWARD_AUDIO_TRANSCRIBE_MODEL)' };
  const type = input.mimeType.split(';')[0]!.trim().toLowerCase();
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(input.audio)], { type }), `speech.${EXTENSIONS[type] ?? 'webm'}`);
  form.set('model', c.transcribeModel);
  form.set('response_format', 'json');
  if (input.language) form.set('language', input.language);
  try {
    const res = await fetch(`${c.baseUrl}/audio/transcriptions`, { method: 'POST', headers: auth(c), body: form, signal: AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), ...(input.signal ? [input.signal] : [])]) });
    if (!res.ok) return { ok: false, reason: await problem(res) };
    const body = (await res.json().catch(() => null)) as { text?: unknown } | null;
    if (typeof body?.text !== 'string') return { ok: false, reason: 'the audio server answered without a transcript' };
    return { ok: true, text: body.text.trim() };
  } catch (e) {
    return { ok: false, reason: `the audio server could not be reached: ${(e as Error).message}` };
  }
}

const SPEECH_TYPES: Record<AudioConfig['speechFormat'], string> = { wav: 'audio/wav', mp3: 'audio/mpeg', opus: 'audio/ogg', aac: 'audio/aac', flac: 'audio/flac' };
const MAX_SPEECH_BYTES = 20 * 1024 * 1024;

export async function speak(c: AudioConfig, input: { text: string; voice: string; signal?: AbortSignal }): Promise<Spoken> {
  if (!c.speechModel) return { ok: false, reason: 'no speech model is configured (STEWARD_AUDIO_SPEECH_MODEL)' };
  try {
    const res = await fetch(`${c.baseUrl}/audio/speech`, {
      method: 'POST',
      headers: { ...auth(c), 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: c.speechModel, input: input.text, voice: input.voice, response_format: c.speechFormat }),
      signal: AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), ...(input.signal ? [input.signal] : [])]),
    });
    if (!res.ok) return { ok: false, reason: await problem(res) };
    const bytes = Buffer.from(await res.arrayBuffer());
    if (!bytes.byteLength) return { ok: false, reason: 'the audio server answered with no audio' };
    if (bytes.byteLength > MAX_SPEECH_BYTES) return { ok: false, reason: 'the audio server answered with more audio than Steward passes on' };
    const declared = res.headers.get('content-type')?.split(';')[0]?.trim();
    return { ok: true, bytes, contentType: declared?.startsWith('audio/') ? declared : SPEECH_TYPES[c.speechFormat] };
  } catch (e) {
    return { ok: false, reason: `the audio server could not be reached: ${(e as Error).message}` };
  }
}
