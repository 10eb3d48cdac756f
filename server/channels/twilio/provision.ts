import { publicOrigin } from '@/server/http/public-origin';
import { availableNumbers, buyNumber, ownedNumberNamed } from './api';
import type { TwilioConfig } from './config';

/*
 * Buying a number for a phone-line request (STEWARD_TWILIO_PROVISION=1): Twilio's two steps, a
 * search of AvailablePhoneNumbers (in the user's country, in the area code the request's notes
 * name, if any) and a purchase through IncomingPhoneNumbers whose SmsUrl is Steward's webhook on
 * its public URL, so the number's texts reach Steward from the first one.
 */

/** An area code the person wrote in the request's notes ("area code 415", "415 please"). */
export function areaCodeOf(notes: string): string | null {
  const m = /(?:area\s*code\s*)?\b(\d{3})\b/i.exec(notes);
  return m ? m[1]! : null;
}

/**
 * The number for request `requestId`: bought under the FriendlyName `steward:<requestId>`, so an
 * attempt after one that bought it but could not assign it (a failure, a crash between the two)
 * finds that number instead of buying a second one.
 */
export async function buyLineNumber(config: TwilioConfig, requestId: string, want: { country: string; notes: string; voice: boolean }): Promise<{ sid: string; number: string }> {
  const friendlyName = `steward:${requestId}`;
  const owned = await ownedNumberNamed(config, friendlyName);
  if (owned) return owned;
  const areaCode = areaCodeOf(want.notes);
  let found = await availableNumbers(config, { country: want.country, areaCode, sms: true, voice: want.voice });
  // No number in that area code: any number of the country rather than none.
  if (!found.length && areaCode) found = await availableNumbers(config, { country: want.country, areaCode: null, sms: true, voice: want.voice });
  if (!found.length) throw new Error(`Twilio has no number available in ${want.country}`);
  const origin = publicOrigin().origin;
  return buyNumber(config, {
    phoneNumber: found[0]!,
    smsUrl: `${origin}/api/channels/twilio/messages`,
    voiceUrl: want.voice ? `${origin}/api/channels/twilio/voice` : null,
    voiceStatusUrl: want.voice ? `${origin}/api/channels/twilio/voice/status` : null,
    friendlyName,
  });
}
