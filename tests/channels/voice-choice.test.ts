import { describe, expect, it } from 'vitest';
import { callVoice } from '@/server/channels/voice-providers';

/* Which Twilio voice a call speaks with: the assistant's, else its owner's (User.voice), else the deployment's. */
describe('callVoice', () => {
  const env = { STEWARD_TWILIO_VOICE: 'Polly.Amy-Neural' };
  const twilio = (voiceId: string) => ({ voice: { provider: 'twilio', voiceId } });
  it('the assistant’s listed voice first, then the owner’s, then STEWARD_TWILIO_VOICE', () => {
    expect(callVoice([twilio('Polly.Brian-Neural'), twilio('Polly.Lea-Neural')], env)).toBe('Polly.Brian-Neural');
    expect(callVoice([{ voice: null }, twilio('Polly.Lea-Neural')], env)).toBe('Polly.Lea-Neural');
    expect(callVoice([null, null], env)).toBe('Polly.Amy-Neural');
    expect(callVoice([null, null], {})).toBeNull();
  });
  it('a voice of another provider or one Twilio does not list is passed over', () => {
    expect(callVoice([{ voice: { provider: 'openai', voiceId: 'nova' } }, twilio('Polly.Lea-Neural')], env)).toBe('Polly.Lea-Neural');
    expect(callVoice([twilio('Polly.Nobody'), twilio('Polly.Nobody-Else')], env)).toBe('Polly.Amy-Neural');
  });
});
