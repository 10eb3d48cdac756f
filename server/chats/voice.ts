import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { assistants, chatMessages, users } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { speak, transcribe } from '@/server/channels/audio/client';
import { audioConfig } from '@/server/channels/audio/config';
import { speechVoice } from '@/server/channels/voice-providers';
import { AppError, invalidFields, notFound } from '@/server/http/errors';
import { findChatForActor } from './access';
import { MAX_AUDIO_BYTES, type SpeakBody, type TranscribeBody } from './voice-contracts';

/*
 * Live voice in the hosted app (issue 35): the person holds the voice button on their chat page,
 * the recording is transcribed here by the configured OpenAI-compatible audio API
 * (`/audio/transcriptions`), the page sends the text as the chat's next message (the same durable
 * chat turn as a typed one, its message marked platform `voice`), and the reply is spoken through
 * `/audio/speech` in the assistant's voice. Both calls are the person's own chat's: another user's
 * chat or message is 404. Without a speech provider: 409 `voice_not_configured`.
 */

const notConfigured = (what: string) => new AppError(409, 'voice_not_configured', `Live voice is not set up on this deployment: ${what}`);

export async function transcribeChatAudio(db: Db, actor: Actor, input: z.infer<typeof TranscribeBody>): Promise<{ ok: true; text: string }> {
  requireUser(actor);
  await findChatForActor(db, actor, input.chatId);
  const config = audioConfig();
  if (!config?.transcribeModel) throw notConfigured('no transcription model (STEWARD_AUDIO_TRANSCRIBE_MODEL)');
  const audio = Buffer.from(input.audio, 'base64');
  if (!audio.byteLength) throw invalidFields([{ field: 'audio', problem: 'must not be empty' }]);
  if (audio.byteLength > MAX_AUDIO_BYTES) throw invalidFields([{ field: 'audio', problem: 'is longer than live voice takes (4 MB)' }]);
  const heard = await transcribe(config, { audio, mimeType: input.mimeType });
  if (!heard.ok) throw new AppError(502, 'transcription_failed', `The recording could not be transcribed: ${heard.reason}`);
  return { ok: true, text: heard.text };
}

export async function speakChatMessage(db: Db, actor: Actor, input: z.infer<typeof SpeakBody>): Promise<{ ok: true; audio: string; contentType: string; voice: string }> {
  requireUser(actor);
  const chat = await findChatForActor(db, actor, input.chatId);
  const [message] = await db.select().from(chatMessages).where(and(eq(chatMessages.id, input.messageId), eq(chatMessages.chatId, chat.id)));
  if (!message) throw notFound('Message');
  if (message.role !== 'assistant') throw invalidFields([{ field: 'messageId', problem: 'names a message the assistant did not write' }]);
  const config = audioConfig();
  if (!config?.speechModel) throw notConfigured('no speech model (STEWARD_AUDIO_SPEECH_MODEL)');
  const [assistant] = await db.select({ voice: assistants.voice }).from(assistants).where(eq(assistants.id, chat.assistantId));
  // The assistant's voice, else the one the chat's person chose for their assistants.
  const [owner] = await db.select({ voice: users.voice }).from(users).where(eq(users.id, chat.userId));
  const voice = speechVoice([assistant, owner], config);
  const text = message.content.trim().slice(0, 4_096) || '…';
  const said = await speak(config, { text, voice });
  if (!said.ok) throw new AppError(502, 'speech_failed', `The reply could not be spoken: ${said.reason}`);
  return { ok: true, audio: said.bytes.toString('base64'), contentType: said.contentType, voice };
}
