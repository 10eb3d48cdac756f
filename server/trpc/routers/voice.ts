import { speakChatMessage, transcribeChatAudio } from '@/server/chats/voice';
import { SpeakBody, TranscribeBody } from '@/server/chats/voice-contracts';
import { voiceProviders } from '@/server/channels/voice-providers';
import { router, userProcedure } from '../init';

/**
 * Live voice on the chat page: the deployment's voice providers (the same answer as GET
 * /api/voice/providers), a recording transcribed, a reply spoken. The text turn itself is the
 * chat's ordinary process stream.
 */
export const voiceRouter = router({
  providers: userProcedure.query(() => voiceProviders()),
  transcribe: userProcedure.input(TranscribeBody).mutation(({ ctx, input }) => transcribeChatAudio(ctx.db, ctx.actor, input)),
  speak: userProcedure.input(SpeakBody).mutation(({ ctx, input }) => speakChatMessage(ctx.db, ctx.actor, input)),
});
