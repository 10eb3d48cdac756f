import { decodeJwt } from 'jose';

/*
 * The Microsoft tenant an admin connected the Teams app for (the Teams connect flow). The token
 * endpoint's answer carries it as the `tid` claim of its id_token or access token; the answer came
 * straight from the token endpoint in the code exchange (TLS), so the claim is read without
 * checking a signature, as OpenID Connect allows for tokens received that way. It is kept in the
 * connection's details: a Teams user is only ever matched to a Steward user within a tenant an
 * organization or team of that account connected.
 */
export function teamsTenantOf(tokens: Record<string, unknown>): { tenantId?: string } {
  for (const name of ['id_token', 'access_token']) {
    const token = tokens[name];
    if (typeof token !== 'string' || token.split('.').length !== 3) continue;
    try {
      const tid = decodeJwt(token).tid;
      if (typeof tid === 'string' && /^[0-9a-f-]{36}$/i.test(tid)) return { tenantId: tid.toLowerCase() };
    } catch {
      // Not a JWT (an opaque token): no tenant from it.
    }
  }
  return {};
}
