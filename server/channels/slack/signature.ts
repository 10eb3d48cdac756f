import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Slack's request signing, version v0 (Slack: "Verifying requests from Slack"): the signature is
 * HMAC-SHA256, keyed with the app's signing secret, of `v0:<X-Slack-Request-Timestamp>:<raw
 * body>`, sent hex-encoded as `X-Slack-Signature: v0=<hex>`. A timestamp more than five minutes
 * from now is refused whatever the signature, so a captured request cannot be replayed later.
 * The raw body is what is signed: it is checked before anything parses it.
 */

export const SLACK_SIGNATURE_WINDOW_S = 5 * 60;

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'stale' | 'mismatch' };

/** The v0 signature of a body at a timestamp (hex, with its `v0=` prefix). */
export function slackSignature(secret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`, 'utf8').digest('hex')}`;
}

export function verifySlackSignature(
  headers: Pick<Headers, 'get'>,
  rawBody: string,
  secrets: readonly string[],
  nowMs = Date.now(),
): SignatureCheck {
  const timestamp = headers.get('x-slack-request-timestamp');
  const signature = headers.get('x-slack-signature');
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp) || !signature.startsWith('v0=')) return { ok: false, reason: 'missing' };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_SIGNATURE_WINDOW_S) return { ok: false, reason: 'stale' };
  const given = Buffer.from(signature, 'utf8');
  // Several secrets: while an app's signing secret is being rotated, the old one still verifies.
  for (const secret of secrets) {
    const expected = Buffer.from(slackSignature(secret, timestamp, rawBody), 'utf8');
    if (expected.length === given.length && timingSafeEqual(expected, given)) return { ok: true };
  }
  return { ok: false, reason: 'mismatch' };
}
