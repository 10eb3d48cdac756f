import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { silence } from './mulaw';
import { recordedWaits } from './recorded-waits';

/**
 * A loopback stand-in for Twilio's side of a bidirectional media stream (<Connect><Stream>,
 * Twilio's "Media Streams - WebSocket Messages"): it connects to the URL in the TwiML as Twilio
 * does, sends `connected` and `start` (with the <Parameter>s as customParameters), then the
 * caller's audio as `media` messages of 20 ms of μ-law (from a fixture file, paced in real time),
 * and `stop` when the caller hangs up. What Steward sends back is recorded, and played as Twilio
 * would: audio queues up and plays in real time, a `clear` drops what has not played yet (how
 * much is recorded), and a `mark` comes back once the audio before it has played (at once after a
 * clear).
 */

export const CALLER_FIXTURE = path.resolve(import.meta.dirname, '../fixtures/voice/caller-hello.ulaw');
export const callerSpeech = () => readFileSync(CALLER_FIXTURE);

const hex = (n: number) => randomBytes(n).toString('hex');

const unescapeXml = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!);

/** The <Connect><Stream> of a TwiML document: its URL and parameters, or null. */
export function streamOf(twiml: string): { url: string; parameters: Record<string, string> } | null {
  const m = /<Connect>\s*<Stream\b([^>]*?)(?:\/>|>([\s\S]*?)<\/Stream>)\s*<\/Connect>/.exec(twiml);
  if (!m) return null;
  const url = /url="([^"]*)"/.exec(m[1]!)?.[1];
  if (!url) return null;
  const parameters: Record<string, string> = {};
  for (const p of (m[2] ?? '').matchAll(/<Parameter\b[^>]*?name="([^"]*)"[^>]*?value="([^"]*)"[^>]*\/>/g)) parameters[unescapeXml(p[1]!)] = unescapeXml(p[2]!);
  return { url: unescapeXml(url), parameters };
}

export type Received = { at: number; event: string; msg: Record<string, any> };

export async function connectMediaStream(o: { url: string; callSid: string; accountSid: string; parameters: Record<string, string>; streamSid?: string; sendStart?: boolean }) {
  const streamSid = o.streamSid ?? `MZ${hex(16)}`;
  const ws = new WebSocket(o.url);
  const received: Received[] = [];
  const clears: Array<{ at: number; droppedMs: number }> = [];
  let audioBytes = 0;
  let playheadEnd = 0;
  const pendingMarks: Array<{ name: string; timer: ReturnType<typeof setTimeout> }> = [];
  let seq = 0;
  let chunk = 0;
  const started = performance.now();
  const { notify, until } = recordedWaits('media stand-in');

  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => (notify(), resolve({ code, reason: reason.toString() }))));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`media stream refused: HTTP ${res.statusCode}`)));
  });

  const send = (msg: Record<string, unknown>) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ ...msg, sequenceNumber: String(++seq) }));
  };
  const echoMark = (name: string) => send({ event: 'mark', streamSid, mark: { name } });

  ws.on('message', (data) => {
    const at = performance.now();
    const msg = JSON.parse(data.toString()) as Record<string, any>;
    received.push({ at, event: String(msg.event), msg });
    if (msg.event === 'media') {
      const bytes = Buffer.from(String(msg.media?.payload ?? ''), 'base64').length;
      audioBytes += bytes;
      playheadEnd = Math.max(playheadEnd, at) + bytes / 8;
    } else if (msg.event === 'mark') {
      const name = String(msg.mark?.name ?? '');
      const entry = { name, timer: setTimeout(() => (pendingMarks.splice(pendingMarks.indexOf(entry), 1), echoMark(name)), Math.max(0, playheadEnd - at)) };
      pendingMarks.push(entry);
    } else if (msg.event === 'clear') {
      clears.push({ at, droppedMs: Math.max(0, playheadEnd - at) });
      playheadEnd = at;
      for (const m of pendingMarks.splice(0)) {
        clearTimeout(m.timer);
        echoMark(m.name);
      }
    }
    notify();
  });

  await opened;
  send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
  if (o.sendStart !== false) {
    send({
      event: 'start',
      streamSid,
      start: { accountSid: o.accountSid, streamSid, callSid: o.callSid, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, customParameters: o.parameters },
    });
  }

  /** Sends μ-law audio as Twilio does: 20 ms frames, paced in real time (`paceMs` per frame). */
  async function sendAudio(audio: Buffer, paceMs = 20): Promise<{ firstLoudAt: number | null }> {
    let firstLoudAt: number | null = null;
    for (let off = 0; off < audio.length && ws.readyState === ws.OPEN; off += 160) {
      const frame = audio.subarray(off, off + 160);
      if (firstLoudAt === null && frame.some((b) => b !== 0xff && b !== 0x7f)) firstLoudAt = performance.now();
      send({ event: 'media', streamSid, media: { track: 'inbound', chunk: String(++chunk), timestamp: String(Math.round(performance.now() - started)), payload: frame.toString('base64') } });
      if (paceMs > 0) await new Promise((r) => setTimeout(r, paceMs));
    }
    return { firstLoudAt };
  }


  return {
    streamSid,
    ws,
    received,
    clears,
    closed,
    until,
    /** Bytes of assistant audio received. */
    audioBytes: () => audioBytes,
    mediaAfter: (t: number) => received.filter((r) => r.event === 'media' && r.at >= t),
    sendAudio,
    /** The caller says the fixture's words (voiced audio between silences). */
    speak: () => sendAudio(callerSpeech()),
    quiet: (ms: number) => sendAudio(silence(ms)),
    /** Raw message, as an impostor would send it. */
    sendRaw: (msg: Record<string, unknown>) => send(msg),
    /** The caller hangs up: Twilio's `stop`, then the socket closes. */
    hangUp: async () => {
      send({ event: 'stop', streamSid, stop: { accountSid: o.accountSid, callSid: o.callSid } });
      ws.close(1000);
      await closed;
    },
  };
}

export type MediaStream = Awaited<ReturnType<typeof connectMediaStream>>;
