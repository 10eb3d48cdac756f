import { z } from 'zod';

/** The longest recording live voice takes (a minute of Opus is about half a megabyte). */
export const MAX_AUDIO_BYTES = 4 * 1024 * 1024;

export const TranscribeBody = z.object({
  chatId: z.string().min(1).max(100),
  /** The recording, base64 (the hosted app's JSON posts carry it so). */
  audio: z.base64({ message: 'must be the recording in base64' }).min(1, 'must not be empty').max(Math.ceil(MAX_AUDIO_BYTES / 3) * 4, 'is longer than live voice takes (4 MB)'),
  mimeType: z
    .string()
    .max(100)
    .regex(/^audio\/[a-z0-9.+-]+(;.*)?$/i, 'must be an audio type such as audio/webm'),
});

export const SpeakBody = z.object({ chatId: z.string().min(1).max(100), messageId: z.string().min(1).max(100) });
