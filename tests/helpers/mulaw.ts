/*
 * G.711 μ-law for the voice stand-ins (ITU-T G.711): 16-bit linear samples to 8-bit codes and
 * back, and the loudness of a frame. Written here for the tests; Steward itself never transcodes
 * (both Twilio and the realtime model speak μ-law 8 kHz).
 */

const BIAS = 0x84;
const CLIP = 32_635;

export function encodeSample(sample: number): number {
  let s = Math.max(-32_768, Math.min(32_767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  s = Math.min(CLIP, s) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

export function decodeSample(code: number): number {
  const u = ~code & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  return sign ? -magnitude : magnitude;
}

/** Root mean square of a frame of μ-law bytes, in linear units (silence is near 0). */
export function loudness(frame: Uint8Array): number {
  if (!frame.length) return 0;
  let sum = 0;
  for (const b of frame) sum += decodeSample(b) ** 2;
  return Math.sqrt(sum / frame.length);
}

/** `ms` of μ-law silence. */
export const silence = (ms: number) => Buffer.alloc(ms * 8, 0xff);

/** `ms` of a tone (a stand-in for a voice) at 8 kHz. */
export function tone(ms: number, hz = 220, amplitude = 8_000): Buffer {
  const out = Buffer.alloc(ms * 8);
  for (let i = 0; i < out.length; i++) out[i] = encodeSample(amplitude * Math.sin((2 * Math.PI * hz * i) / 8_000));
  return out;
}
