/*
 * Twilio's settings (spec 5, Providers): TWILIO_ACCOUNT_SID with TWILIO_AUTH_TOKEN, or with an API
 * key (TWILIO_API_KEY + TWILIO_API_SECRET) for the REST calls; STEWARD_TWILIO_API_URL points the
 * calls elsewhere (a regional edge, a test stand-in). Without credentials Twilio is off: its
 * webhooks answer 404 and texts fail with `no provider configured for <channel>`.
 *
 * Twilio signs its webhooks with the account's Auth Token whatever credential the REST calls use,
 * so receiving needs TWILIO_AUTH_TOKEN: with an API key alone Steward can send, and its webhooks
 * stay off (404) rather than accept what it cannot check.
 */

export type TwilioConfig = {
  accountSid: string;
  /** HTTP basic credentials of the REST calls: the account sid and Auth Token, or an API key and its secret. */
  username: string;
  password: string;
  /** The Auth Token, which signs Twilio's webhooks (null: webhooks off). */
  authToken: string | null;
  apiUrl: string;
  /** Buy numbers for phone-line requests through Twilio (STEWARD_TWILIO_PROVISION=1). */
  provision: boolean;
  /** Steward's own sender for texts that no assistant line carries (verification codes): a number or a Messaging Service sid. */
  smsFrom: string | null;
  /** An approved WhatsApp template (Content sid, one variable: the text) for notices outside the 24-hour window. */
  whatsappNoticeTemplate: string | null;
};

const trimmed = (v: string | undefined) => v?.trim() || null;

export function twilioConfig(env: Record<string, string | undefined> = process.env): TwilioConfig | null {
  const accountSid = trimmed(env.TWILIO_ACCOUNT_SID);
  const authToken = trimmed(env.TWILIO_AUTH_TOKEN);
  const apiKey = trimmed(env.TWILIO_API_KEY);
  const apiSecret = trimmed(env.TWILIO_API_SECRET);
  if (!accountSid || (!authToken && !(apiKey && apiSecret))) return null;
  return {
    accountSid,
    username: apiKey && apiSecret ? apiKey : accountSid,
    password: apiKey && apiSecret ? apiSecret : authToken!,
    authToken,
    apiUrl: (trimmed(env.STEWARD_TWILIO_API_URL) ?? 'https://api.twilio.com').replace(/\/+$/, ''),
    provision: env.STEWARD_TWILIO_PROVISION === '1',
    smsFrom: trimmed(env.STEWARD_TWILIO_SMS_FROM),
    whatsappNoticeTemplate: trimmed(env.STEWARD_TWILIO_WHATSAPP_NOTICE_TEMPLATE),
  };
}

/** The Twilio configuration that can receive webhooks (an Auth Token to check signatures), or null: the webhooks answer 404. */
export function twilioWebhookConfig(env: Record<string, string | undefined> = process.env): (TwilioConfig & { authToken: string }) | null {
  const config = twilioConfig(env);
  return config?.authToken ? (config as TwilioConfig & { authToken: string }) : null;
}
