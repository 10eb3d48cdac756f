import { z } from 'zod';
import { liveVoiceAvailability, offerLiveVoice } from '@/server/chats/live-voice';
import { speakChatMessage, transcribeChatAudio } from '@/server/chats/voice';
import { SpeakBody, TranscribeBody } from '@/server/chats/voice-contracts';
import { voiceProviders } from '@/server/channels/voice-providers';
import { liveUserProcedure, router, userProcedure } from '../init';

/**
 * Voice on the chat page: the deployment's voice providers (the same answer as GET
 * /api/voice/providers), a recording transcribed, a reply spoken (hold to talk: the text turn
 * itself is the chat's ordinary process stream), and live voice: whether the deployment has a
 * realtime model, and a short-lived token for the live voice WebSocket of the person's own chat.
 */
export const voiceRouter = router({
  providers: userProcedure.query(() => voiceProviders()),
  transcribe: userProcedure.input(TranscribeBody).mutation(({ ctx, input }) => transcribeChatAudio(ctx.db, ctx.actor, input)),
  speak: userProcedure.input(SpeakBody).mutation(({ ctx, input }) => speakChatMessage(ctx.db, ctx.actor, input)),
  liveAvailable: userProcedure.query(() => liveVoiceAvailability()),
  live: liveUserProcedure.input(z.object({ chatId: z.string().min(1).max(100) })).mutation(({ ctx, input }) => offerLiveVoice(ctx.db, ctx.actor, input)),
});
