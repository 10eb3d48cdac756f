import type { PortalContext } from './context';

/**
 * CSRF: the session cookie is SameSite=Lax, and mutations must also be JSON posts from the hosted
 * app's own origin (a cross-site form cannot send application/json, and browsers always send
 * Origin on POST). The origin compared is the configured one, not the Host header; an Origin that
 * is not a URL (`null` from a sandboxed frame or a redirect chain) is cross-site.
 */
export function crossSiteRefusal(req: Request, site: PortalContext['site']): Response | null {
  if (req.method !== 'POST') return null;
  const origin = req.headers.get('origin');
  const sameOrigin = origin === null || origin === site.origin;
  const json = (req.headers.get('content-type') ?? '').startsWith('application/json');
  if (sameOrigin && json) return null;
  return Response.json({ ok: false, status: 403, error_code: 'forbidden', error: 'Cross-site request refused' }, { status: 403 });
}
