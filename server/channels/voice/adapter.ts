import type { CallingAdapter } from '../adapter';
import { twilioConfig } from '../twilio/config';
import { placeTwilioCall } from './dial';

/** Phone calls the assistant places, through Twilio (STEWARD_TWILIO_*); off while Twilio is not configured. */
export const voiceAdapter: CallingAdapter = {
  channel: 'voice',
  label: 'phone calls',
  capabilities: { calls: true },
  configured: () => twilioConfig() !== null,
  placeCall: placeTwilioCall,
};
