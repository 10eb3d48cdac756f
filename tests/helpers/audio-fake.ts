import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the OpenAI audio API (what STEWARD_AUDIO_BASE_URL points at):
 *
 *   POST /v1/audio/transcriptions  multipart (file, model, response_format): answers {text} with the
 *                                  next scripted transcript (else the fallback), refusing a request
 *                                  without a file or a model as OpenAI does (400).
 *   POST /v1/audio/speech          JSON (model, input, voice, response_format): answers a real WAV
 *                                  file (a short tone, 16 kHz mono PCM), whatever format was asked.
 *
 * Every request is recorded. Other processes (the browser tests) script it over HTTP:
 * POST /control/transcripts {text} queues a transcript; GET /control/requests lists what came.
 */

export type AudioRequest =
  | { kind: 'transcription'; model: string | null; filename: string | null; mimeType: string | null; bytes: number; authorization: string | null }
  | { kind: 'speech'; model: string | null; input: string; voice: string | null; format: string | null; authorization: string | null };

/** A WAV file: `ms` of a 440 Hz tone, 16-bit mono PCM at 16 kHz. */
export function toneWav(ms = 400, rate = 16_000): Buffer {
  const samples = Math.round((rate * ms) / 1000);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8_000), i * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

export async function startAudioFake(opts: { fallback?: string } = {}) {
  const requests: AudioRequest[] = [];
  const transcripts: string[] = [];
  const state = { fallback: opts.fallback ?? 'Hello there.', speechDelayMs: 0, transcriptionDelayMs: 0 };
  const wav = toneWav();

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, message: string) => json(res, status, { error: { message, type: 'invalid_request_error', param: null, code: null } });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const authorization = (req.headers.authorization as string | undefined) ?? null;
    if (req.method === 'POST' && url.pathname === '/control/transcripts') {
      const { text } = JSON.parse(raw.toString('utf8')) as { text: string };
      transcripts.push(text);
      return json(res, 200, { ok: true, queued: transcripts.length });
    }
    if (req.method === 'GET' && url.pathname === '/control/requests') return json(res, 200, { requests });
    if (req.method === 'POST' && url.pathname === '/v1/audio/transcriptions') {
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith('multipart/form-data')) return refuse(res, 400, 'Expected multipart/form-data');
      const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: raw }).formData();
      const file = form.get('file');
      const model = form.get('model');
      if (!(file instanceof Blob) || !file.size) return refuse(res, 400, 'file: required');
      if (typeof model !== 'string' || !model) return refuse(res, 400, 'model: required');
      requests.push({ kind: 'transcription', model, filename: (file as File).name ?? null, mimeType: file.type || null, bytes: file.size, authorization });
      if (state.transcriptionDelayMs) await new Promise((r) => setTimeout(r, state.transcriptionDelayMs));
      return json(res, 200, { text: transcripts.shift() ?? state.fallback });
    }
    if (req.method === 'POST' && url.pathname === '/v1/audio/speech') {
      let body: { model?: string; input?: string; voice?: string; response_format?: string };
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return refuse(res, 400, 'body is not JSON');
      }
      if (!body.input || !body.model || !body.voice) return refuse(res, 400, 'model, input and voice are required');
      requests.push({ kind: 'speech', model: body.model, input: body.input, voice: body.voice, format: body.response_format ?? null, authorization });
      if (state.speechDelayMs) await new Promise((r) => setTimeout(r, state.speechDelayMs));
      res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': String(wav.byteLength) });
      return res.end(wav);
    }
    return refuse(res, 404, `no route ${req.method} ${url.pathname}`);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) refuse(res, 500, (e as Error).message);
      else res.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    state,
    /** Transcripts for the next transcription requests, in order. */
    enqueue: (...texts: string[]) => transcripts.push(...texts),
    env: () => ({ STEWARD_AUDIO_BASE_URL: `${origin}/v1`, STEWARD_AUDIO_TRANSCRIBE_MODEL: 'fake-whisper', STEWARD_AUDIO_SPEECH_MODEL: 'fake-tts' }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type AudioFake = Awaited<ReturnType<typeof startAudioFake>>;
