import type { ServerResponse } from 'node:http';

/** A number the stand-in sold, with the webhooks Twilio would call for it. */
export type BoughtNumber = { sid: string; phoneNumber: string; smsUrl: string | null; voiceUrl?: string | null; voiceStatusUrl?: string | null; friendlyName?: string };

/**
 * The Twilio stand-in's phone numbers (twilio-fake.ts): GET AvailablePhoneNumbers/{country}/Local.json
 * (what `state.available` holds, by AreaCode), POST IncomingPhoneNumbers.json (buys one of them with its
 * SmsUrl, VoiceUrl, StatusCallback and FriendlyName) and GET IncomingPhoneNumbers.json (the account's
 * numbers, by FriendlyName or PhoneNumber, as Twilio filters them).
 */
export function twilioNumbers(o: {
  accountSid: string;
  state: { available: string[] };
  json: (res: ServerResponse, status: number, body: unknown) => void;
  error: (res: ServerResponse, status: number, code: number, message: string) => void;
  sid: (prefix: string) => string;
}) {
  const { accountSid, state, json, error, sid } = o;
  const bought: BoughtNumber[] = [];
  /** Answers the request when it is one of the numbers' own; false otherwise. */
  const handle = (method: string, rest: string, url: URL, form: Record<string, string>, res: ServerResponse): boolean => {
    const available = /^AvailablePhoneNumbers\/([A-Z]{2})\/Local\.json$/.exec(rest);
    if (method === 'GET' && available) {
      const wanted = url.searchParams.get('AreaCode');
      const list = state.available.filter((n) => !wanted || n.slice(2, 5) === wanted);
      json(res, 200, { available_phone_numbers: list.map((n) => ({ phone_number: n, friendly_name: n, iso_country: available[1], capabilities: { voice: true, SMS: true, MMS: true } })), uri: url.pathname });
      return true;
    }
    if (method === 'GET' && rest === 'IncomingPhoneNumbers.json') {
      // Twilio reads the account's numbers filtered by FriendlyName (an exact match) or PhoneNumber.
      const name = url.searchParams.get('FriendlyName');
      const number = url.searchParams.get('PhoneNumber');
      const list = bought.filter((b) => (name === null || (b.friendlyName ?? b.phoneNumber) === name) && (number === null || b.phoneNumber === number));
      json(res, 200, { incoming_phone_numbers: list.map((b) => ({ sid: b.sid, account_sid: accountSid, phone_number: b.phoneNumber, friendly_name: b.friendlyName ?? b.phoneNumber, sms_url: b.smsUrl })), uri: url.pathname });
      return true;
    }
    if (method === 'POST' && rest === 'IncomingPhoneNumbers.json') {
      if (!form.PhoneNumber || !state.available.includes(form.PhoneNumber)) {
        error(res, 400, 21422, 'PhoneNumber requested is not available');
        return true;
      }
      state.available = state.available.filter((n) => n !== form.PhoneNumber);
      const row = { sid: sid('PN'), phoneNumber: form.PhoneNumber, smsUrl: form.SmsUrl ?? null, voiceUrl: form.VoiceUrl ?? null, voiceStatusUrl: form.StatusCallback ?? null, friendlyName: form.FriendlyName };
      bought.push(row);
      json(res, 201, { sid: row.sid, account_sid: accountSid, phone_number: row.phoneNumber, sms_url: row.smsUrl, sms_method: form.SmsMethod ?? 'POST', capabilities: { voice: true, sms: true, mms: true } });
      return true;
    }
    return false;
  };
  return { bought, handle };
}
