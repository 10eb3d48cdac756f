import { originForHost, publicOrigin, type Origin } from '@/server/http/public-origin';

/**
 * A hosted app's origin: https://<hosted domain> (http for loopback host names, used in tests),
 * or the public origin (STEWARD_PUBLIC_URL) for an account without a hosted domain. Emailed
 * links, SAML values, the SCIM endpoint and the session cookie's Secure flag all follow it.
 */
export function siteOrigin(hostedDomain: string | null): Origin {
  return hostedDomain ? originForHost(hostedDomain) : publicOrigin();
}
