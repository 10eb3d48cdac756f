const SECRET = /token|secret|password|code|key/i;

/** The non-secret part of a provider's token response: ids, names, scopes, expiry. */
export function tokenDetails(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (SECRET.test(k)) continue;
    out[k] = typeof v === 'object' && v !== null && !Array.isArray(v) ? tokenDetails(v) : v;
  }
  return out;
}
