import type { VoiceCallTerms } from '@/db/schema';

/*
 * Outbound phone calls (place_call's approved dispatches, spec 5): what one placement says. The
 * voice adapter (voice/adapter.ts, the port's calls capability) dials it through Twilio's Calls
 * API; without Twilio, a call is refused with the reason and never reported as placed. `accepted` means
 * the provider took the call (it is dialling): what came of it (answered, voicemail, no answer,
 * failed) reaches the task later, as an activity that wakes it.
 */

export type CallPlacement = {
  /** E.164. */
  to: string;
  purpose: string;
  /** What the assistant says once someone answers (the approved text). */
  script: string;
  /** The assistant speaks for the user (voice_call_as_user) rather than as itself. */
  asUser: boolean;
  /** The dispatch job's key: one call per released dispatch version, ever. */
  idempotencyKey: string;
  accountId: string;
  assistantId: string;
  userId: string;
  taskId: string;
  dispatchId: string;
  /** The approved bounds of a live conversation (issue 48): what may be agreed, what is referred back, what a machine gets. */
  terms?: VoiceCallTerms;
};

/** A call's bounds when its dispatch named none (an inbound call, a call placed before issue 48). */
export const DEFAULT_TERMS: VoiceCallTerms = { mayAgree: null, referBack: null, onMachine: 'voicemail', asUser: false };
