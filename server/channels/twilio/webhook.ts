import type { TextWebhookRequest, Verified } from '../adapter';
import { twilioWebhookConfig } from './config';
import { validTwilioSignature } from './signature';

/*
 * Whether a webhook is Twilio's, for every Twilio webhook (texts and voice): X-Twilio-Signature
 * over the URL Twilio was given (STEWARD_PUBLIC_URL + the path and query; never the Host header)
 * and the posted parameters, and the deployment's own AccountSid among them. Twilio's signature
 * has no timestamp: a replay is recognised by its MessageSid (a text) or changes nothing (a status
 * only moves forward, a call step answers for the call's state).
 */

export type TwilioVerified = { ok: true; record: Record<string, string> } | Extract<Verified, { ok: false }>;

/** The posted parameters once the request is proven Twilio's; 404 while Twilio (or its Auth Token) is not configured. */
export function verifyTwilio(req: TextWebhookRequest): TwilioVerified {
  const config = twilioWebhookConfig();
  if (!config) return { ok: false, status: 404, reason: 'Twilio is not configured' };
  const params = [...new URLSearchParams(req.rawBody.toString('utf8')).entries()];
  if (!validTwilioSignature(config.authToken, req.url.href, params, req.headers.get('x-twilio-signature'))) {
    return { ok: false, status: 403, reason: 'X-Twilio-Signature: missing or not valid for this URL and these parameters' };
  }
  const record = Object.fromEntries(params);
  if (record.AccountSid !== config.accountSid) return { ok: false, status: 403, reason: 'AccountSid: not this deployment’s Twilio account' };
  return { ok: true, record };
}
