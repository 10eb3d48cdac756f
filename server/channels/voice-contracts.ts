import { z } from 'zod';

/** One voice a provider speaks with: what an assistant's `voice {provider, voiceId}` names. */
const VoiceOption = z.object({
  voiceId: z.string(),
  name: z.string(),
  language: z.string().nullable(),
  gender: z.enum(['female', 'male']).nullable(),
});

const VoiceProvider = z.object({
  /** The value of an assistant's `voice.provider`. */
  provider: z.enum(['twilio', 'openai']),
  name: z.string(),
  /** Credentials (and models) are set: the provider is on. */
  configured: z.boolean(),
  /** Where this provider's voices are heard: `calls` (phone calls on the assistant's number), `live_voice` (the hosted app's voice button). */
  usedFor: z.array(z.enum(['calls', 'live_voice'])),
  capabilities: z.object({
    inboundCalls: z.boolean(),
    outboundCalls: z.boolean(),
    transcription: z.boolean(),
    speech: z.boolean(),
  }),
  /** The audio API's models (null for the telephony provider). */
  models: z.object({ transcription: z.string().nullable(), speech: z.string().nullable() }).nullable(),
  voices: z.array(VoiceOption),
  /** Spoken when an assistant names no voice of this provider (null: the provider's own default). */
  defaultVoiceId: z.string().nullable(),
});

export const VoiceProvidersResponse = z.object({ ok: z.literal(true), providers: z.array(VoiceProvider) });
export type VoiceProvidersResponse = z.infer<typeof VoiceProvidersResponse>;
