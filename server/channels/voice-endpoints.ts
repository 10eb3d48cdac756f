import { defineEndpoint } from '@/server/http/endpoint';
import { VoiceProvidersResponse } from './voice-contracts';
import { voiceProviders } from './voice-providers';

export const voiceEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/voice/providers',
    summary: 'The voice providers of this deployment and their voices (the values of an assistant’s voice {provider, voiceId})',
    description:
      '`twilio` speaks phone calls on assistants’ numbers (Twilio’s text to speech; its speech recognition hears the caller); `openai` is the OpenAI-compatible audio API (STEWARD_AUDIO_*) that transcribes and speaks live voice in the hosted app. `configured: false`: its credentials or models are not set. A voice an assistant names that its provider does not list falls back to `defaultVoiceId`.',
    tags: ['Channels'],
    auth: 'any',
    response: VoiceProvidersResponse,
    handle: async () => voiceProviders(),
  }),
];
