import { publicOrigin } from '@/server/http/public-origin';

/*
 * The URLs Twilio is given for a call's steps: STEWARD_PUBLIC_URL with the path, and the call's id
 * in the query (Twilio signs the whole URL, so the webhook checks it against exactly this). The
 * dialler (dial.ts) hands them to Twilio's Calls API; the voice webhooks (messaging/voice-*.ts)
 * answer them and give the next ones in their TwiML.
 */

export const VOICE_PATH = '/api/channels/twilio/voice';
export const VOICE_STEPS = ['speech', 'wait', 'answer', 'reply', 'status', 'streamed'] as const;
export type VoiceStep = (typeof VOICE_STEPS)[number];

/** A step's URL, as Twilio will call and sign it. */
export function stepUrl(step: VoiceStep, query: Record<string, string | number>): string {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return `${publicOrigin().origin}${VOICE_PATH}/${step}?${q.toString()}`;
}
