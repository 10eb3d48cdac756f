/**
 * Names kept from a provider's token response: ids, names, scopes and expiry. An allow-list,
 * because providers add secrets under names no deny-list predicts (Slack's
 * `incoming_webhook.url` is itself a credential).
 */
const KEPT = new Set([
  'ok',
  'app_id',
  'bot_user_id',
  'team',
  'enterprise',
  'authed_user',
  'incoming_webhook',
  'is_enterprise_install',
  'id',
  'name',
  'channel',
  'channel_id',
  'scope',
  'token_type',
  'expires_in',
  'ext_expires_in',
]);

/** Values shaped like a Slack token or a JWT are dropped even under a kept name. */
const LOOKS_SECRET = /^xox[a-z]-|^eyJ[\w-]*\.[\w-]+\.[\w-]*$/;

/** The non-secret part of a provider's token response. */
export function tokenDetails(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!KEPT.has(k)) continue;
    if (typeof v === 'string' && LOOKS_SECRET.test(v)) continue;
    out[k] = typeof v === 'object' && v !== null && !Array.isArray(v) ? tokenDetails(v) : v;
  }
  return out;
}
