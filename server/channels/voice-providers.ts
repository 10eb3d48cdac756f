import { audioConfig, type AudioConfig } from './audio/config';
import { twilioConfig, twilioWebhookConfig } from './twilio/config';
import type { VoiceProvidersResponse } from './voice-contracts';

/*
 * GET /voice/providers (spec 1 names it, its shape is Steward's): which voice providers this
 * deployment has and the voices each speaks with, so a client can set an assistant's
 * `voice {provider, voiceId}`:
 * - `twilio`: phone calls on the assistant's number. Calls are spoken by Twilio's text to speech
 *   (<Say>); the voices are Twilio's (Amazon Polly and Google voices by name), a curated list that
 *   STEWARD_TWILIO_VOICES replaces. Inbound calls need the Auth Token (webhook signatures).
 * - `openai`: the OpenAI-compatible audio API (STEWARD_AUDIO_*), for live voice in the hosted app:
 *   transcription of what the person says, and the reply spoken in one of its voices.
 * An assistant speaks with its own voice, else its owner's (`User.voice`, set with PATCH /profile);
 * a voice its provider does not list falls back to that provider's default.
 */

type Voice = VoiceProvidersResponse['providers'][number]['voices'][number];

const TWILIO_VOICES: Voice[] = [
  { voiceId: 'Polly.Joanna-Neural', name: 'Joanna', language: 'en-US', gender: 'female' },
  { voiceId: 'Polly.Matthew-Neural', name: 'Matthew', language: 'en-US', gender: 'male' },
  { voiceId: 'Polly.Amy-Neural', name: 'Amy', language: 'en-GB', gender: 'female' },
  { voiceId: 'Polly.Brian-Neural', name: 'Brian', language: 'en-GB', gender: 'male' },
  { voiceId: 'Polly.Lupe-Neural', name: 'Lupe', language: 'es-US', gender: 'female' },
  { voiceId: 'Polly.Lea-Neural', name: 'Léa', language: 'fr-FR', gender: 'female' },
  { voiceId: 'Polly.Vicki-Neural', name: 'Vicki', language: 'de-DE', gender: 'female' },
  { voiceId: 'Google.en-US-Neural2-F', name: 'Google en-US F', language: 'en-US', gender: 'female' },
  { voiceId: 'Google.en-US-Neural2-D', name: 'Google en-US D', language: 'en-US', gender: 'male' },
];

const listed = (raw: string | undefined): Voice[] | null => {
  const ids = raw?.split(',').map((v) => v.trim()).filter(Boolean);
  return ids?.length ? ids.map((voiceId) => ({ voiceId, name: voiceId, language: null, gender: null })) : null;
};

export function twilioVoices(env: Record<string, string | undefined> = process.env): Voice[] {
  return listed(env.STEWARD_TWILIO_VOICES) ?? TWILIO_VOICES;
}

/** The language calls are spoken and heard in (Twilio's <Say> and speech recognition). */
export const callLanguage = (env: Record<string, string | undefined> = process.env) => env.STEWARD_VOICE_LANGUAGE?.trim() || 'en-US';

/**
 * Who may name the voice, in order: the assistant, then its owner (spec 1 `User.voice`, the voice
 * the person chose for their assistants). The first that names a voice the provider lists wins; a
 * voice of another provider or an unlisted one is passed over.
 */
export type Voiced = { voice: { voiceId: string; provider: string } | null } | null | undefined;
export const firstListed = (choosers: Voiced[], provider: string, listed: (id: string) => boolean = () => true) =>
  choosers.map((c) => c?.voice).find((v) => v?.provider === provider && listed(v.voiceId))?.voiceId ?? null;

/** The Twilio voice a call speaks with: the assistant's or else its owner's, when it names a listed Twilio voice; else STEWARD_TWILIO_VOICE; else Twilio's default. */
export function callVoice(choosers: Voiced[], env: Record<string, string | undefined> = process.env): string | null {
  const voices = twilioVoices(env);
  return firstListed(choosers, 'twilio', (id) => voices.some((v) => v.voiceId === id)) ?? (env.STEWARD_TWILIO_VOICE?.trim() || null);
}

/** The audio API voice live voice speaks with: the assistant's or else its owner's, when listed; else the first. */
export function speechVoice(choosers: Voiced[], config: AudioConfig): string {
  return firstListed(choosers, 'openai', (id) => config.voices.includes(id)) ?? config.voices[0]!;
}

export function voiceProviders(env: Record<string, string | undefined> = process.env): VoiceProvidersResponse {
  const twilio = twilioConfig(env);
  const audio = audioConfig(env);
  const audioVoices = audio?.voices ?? [];
  return {
    ok: true,
    providers: [
      {
        provider: 'twilio',
        name: 'Twilio Voice',
        configured: twilio !== null,
        usedFor: ['calls'],
        capabilities: { inboundCalls: twilioWebhookConfig(env) !== null, outboundCalls: twilio !== null, transcription: twilio !== null, speech: twilio !== null },
        models: null,
        voices: twilioVoices(env),
        defaultVoiceId: env.STEWARD_TWILIO_VOICE?.trim() || null,
      },
      {
        provider: 'openai',
        name: 'OpenAI-compatible audio API',
        configured: audio !== null,
        usedFor: ['live_voice'],
        capabilities: { inboundCalls: false, outboundCalls: false, transcription: Boolean(audio?.transcribeModel), speech: Boolean(audio?.speechModel) },
        models: audio ? { transcription: audio.transcribeModel, speech: audio.speechModel } : null,
        voices: audioVoices.map((voiceId) => ({ voiceId, name: voiceId, language: null, gender: null })),
        defaultVoiceId: audioVoices[0] ?? null,
      },
    ],
  };
}
