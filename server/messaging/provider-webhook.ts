import type { TextWebhookRequest, Verified } from '@/server/channels/adapter';
import { twilioWebhookConfig } from '@/server/channels/twilio/config';
import { verifyTwilio } from '@/server/channels/twilio/webhook';
import { AppError, notFound } from '@/server/http/errors';
import { publicOrigin } from '@/server/http/public-origin';
import type { ApiRequest } from '@/server/http/request';

/*
 * A provider webhook that is the provider's own rather than a connection's (the texts', Twilio's
 * voice): read once, bounded, with the URL the provider signs (STEWARD_PUBLIC_URL + the path and
 * query called, never the Host header), and refused the same way whoever verified it.
 */

const MAX_BODY = 256 * 1024;

export async function webhookRequest(req: ApiRequest): Promise<TextWebhookRequest> {
  if (Number(req.headers.get('content-length') ?? 0) > MAX_BODY) throw new AppError(413, 'payload_too_large', 'The webhook body is too large');
  const text = await req.text();
  if (text.length > MAX_BODY) throw new AppError(413, 'payload_too_large', 'The webhook body is too large');
  const called = new URL(req.url, publicOrigin().origin);
  return { url: new URL(`${publicOrigin().origin}${called.pathname}${called.search}`), headers: req.headers, rawBody: Buffer.from(text, 'utf8') };
}

/** A request its verifier did not take: 404 while the provider is off, 403 invalid_signature otherwise; nothing was stored. */
export function refused(v: Extract<Verified, { ok: false }>, what: string): never {
  if (v.status === 404) throw notFound(what);
  throw new AppError(v.status, 'invalid_signature', v.reason);
}

/** A Twilio webhook (voice's), verified: its parameters. */
export async function verifiedTwilio(req: ApiRequest): Promise<{ record: Record<string, string> }> {
  // Off first: nothing is read while Twilio is not configured.
  if (!twilioWebhookConfig()) throw notFound('Twilio webhooks');
  const v = verifyTwilio(await webhookRequest(req));
  if (!v.ok) refused(v, 'Twilio webhooks');
  return { record: v.record };
}
