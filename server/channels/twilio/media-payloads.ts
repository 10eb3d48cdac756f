import { z } from 'zod';

/*
 * Twilio Media Streams over WebSocket (Twilio's "Media Streams - WebSocket Messages"): what Twilio
 * sends on a bidirectional stream (<Connect><Stream>) and what Steward sends back. Audio is
 * base64 G.711 μ-law, 8 kHz, mono, both ways. `clear` empties Twilio's playback buffer (barge-in);
 * a `mark` Steward sends comes back once the audio before it has played. Custom parameters
 * (<Parameter> under <Stream>) arrive in the start message: Twilio does not pass a query string
 * on the stream URL.
 */

const Sid = z.string().max(64);

export const MediaConnected = z.object({ event: z.literal('connected') }).loose();
export const MediaStart = z
  .object({
    event: z.literal('start'),
    streamSid: Sid,
    start: z
      .object({
        streamSid: Sid.optional(),
        accountSid: Sid,
        callSid: Sid,
        customParameters: z.record(z.string(), z.string().max(4_096)).default({}),
        mediaFormat: z.object({ encoding: z.string(), sampleRate: z.coerce.number(), channels: z.coerce.number().optional() }).loose().optional(),
      })
      .loose(),
  })
  .loose();
export const MediaFrame = z
  .object({
    event: z.literal('media'),
    streamSid: Sid.optional(),
    media: z.object({ track: z.string().optional(), timestamp: z.coerce.number().optional(), payload: z.string().max(64 * 1024) }).loose(),
  })
  .loose();
export const MediaMark = z.object({ event: z.literal('mark'), mark: z.object({ name: z.string().max(200) }).loose() }).loose();
export const MediaStop = z.object({ event: z.literal('stop') }).loose();
export const MediaDtmf = z.object({ event: z.literal('dtmf'), dtmf: z.object({ digit: z.string().max(4) }).loose() }).loose();

export const MediaMessage = z.discriminatedUnion('event', [MediaConnected, MediaStart, MediaFrame, MediaMark, MediaStop, MediaDtmf]);
export type MediaMessage = z.infer<typeof MediaMessage>;

/** What Steward sends on the stream. */
export const outMedia = (streamSid: string, payload: string) => JSON.stringify({ event: 'media', streamSid, media: { payload } });
export const outClear = (streamSid: string) => JSON.stringify({ event: 'clear', streamSid });
export const outMark = (streamSid: string, name: string) => JSON.stringify({ event: 'mark', streamSid, mark: { name } });

/** μ-law at 8 kHz is one byte a sample: 8 bytes a millisecond. */
export const mulawMs = (base64: string) => Math.floor((Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0)) / 8);
