/*
 * 16-bit PCM, mono, little-endian at 24 kHz (OpenAI's `audio/pcm`, the hosted app's live voice)
 * for the voice stand-ins: a frame's loudness, silence and a tone. Written here for the tests.
 */

export const PCM16_RATE = 24_000;
/** Bytes of one millisecond: 24 samples of 2 bytes. */
export const PCM16_BYTES_PER_MS = (PCM16_RATE / 1_000) * 2;

/** Root mean square of a frame's samples, in linear units (silence is near 0; comparable with mulaw.ts' loudness). */
export function loudnessPcm16(frame: Uint8Array): number {
  const samples = Math.floor(frame.length / 2);
  if (!samples) return 0;
  const view = new DataView(frame.buffer, frame.byteOffset, samples * 2);
  let sum = 0;
  for (let i = 0; i < samples; i++) sum += view.getInt16(i * 2, true) ** 2;
  return Math.sqrt(sum / samples);
}

export const silencePcm16 = (ms: number) => Buffer.alloc(ms * PCM16_BYTES_PER_MS);

/** `ms` of a tone (a stand-in for a voice) at 24 kHz. */
export function tonePcm16(ms: number, hz = 220, amplitude = 8_000): Buffer {
  const samples = (ms * PCM16_RATE) / 1_000;
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / PCM16_RATE)), i * 2);
  return out;
}
