import type { NextRequest } from 'next/server';
import { sharedDatabase } from '@/db/client';
import { hostedSite } from '@/server/hosted/accounts';
import { clientIp } from '@/server/http/kernel';
import { errorResponse, toResponse } from '@/server/http/reply';
import { logger } from '@/server/logger';
import { authOptions } from './auth-options';
import { consumeLinkRequest } from './link-limit';
import { signInAddress } from './sign-in-address';
import { nextAuthOnOrigin } from './next-auth-call';
import { assertEmailSignInAllowed } from './sign-in-method';
import { boundedHeader } from '@/server/audit/request-meta';

// next-auth takes its origin from the Host/X-Forwarded-* headers it is given (with AUTH_TRUST_HOST);
// nextAuthOnOrigin gives it the account's configured origin there, never the request's.
process.env.AUTH_TRUST_HOST ??= 'true';

type Ctx = { params: Promise<{ nextauth: string[] }> };

/**
 * /api/auth/*: next-auth for the account the host selects, on that account's configured origin
 * (its hosted domain, or the public origin): the links it mails and the redirects it makes never
 * follow the request's Host. Asking for an email link where SSO is
 * enforced is refused here with 403 sso_required (next-auth itself would only redirect), and
 * link requests are rate limited (429 rate_limited).
 */
export async function portalAuth(req: NextRequest, ctx: Ctx): Promise<Response> {
  try {
    const db = sharedDatabase().db;
    const { account, origin, secure } = await hostedSite(db, req.headers);
    const { nextauth } = await ctx.params;
    if (req.method === 'POST' && nextauth[0] === 'signin' && nextauth[1] === 'email') {
      const form = await req.clone().formData().catch(() => null);
      const email = form?.get('email');
      if (typeof email === 'string' && email) {
        // The SSO rule and the limit apply to exactly the address that will be mailed.
        const address = signInAddress(email);
        await assertEmailSignInAllowed(db, account.id, address);
        await consumeLinkRequest(sharedDatabase().pool, account.id, address, clientIp(req, {}));
      }
    }
    const request = { ip: clientIp(req, {}), userAgent: boundedHeader(req.headers.get('user-agent')), requestId: null };
    return await nextAuthOnOrigin(req, nextauth, await authOptions(db, account, { origin, secure, request }), { origin });
  } catch (e) {
    return toResponse(errorResponse(e, logger));
  }
}
