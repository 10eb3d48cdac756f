import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { sharedDatabase } from '@/db/client';
import { hostedSite } from '@/server/hosted/accounts';
import { clientIp, errorResponse, toResponse } from '@/server/http/kernel';
import { logger } from '@/server/logger';
import { authOptions } from './auth-options';
import { consumeLinkRequest } from './link-limit';
import { assertEmailSignInAllowed } from './sign-in-method';

// Each account's hosted app lives on its own domain, so next-auth takes its origin from the request.
process.env.AUTH_TRUST_HOST ??= 'true';

type Ctx = { params: Promise<{ nextauth: string[] }> };

/**
 * /api/auth/*: next-auth for the account the Host names. Asking for an email link where SSO is
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
      const email = String(form?.get('email') ?? '').trim();
      if (email) {
        await assertEmailSignInAllowed(db, account.id, email);
        await consumeLinkRequest(sharedDatabase().pool, account.id, email, clientIp(req, {}));
      }
    }
    return (await NextAuth(req, ctx, await authOptions(db, account, { origin, secure }))) as Response;
  } catch (e) {
    return toResponse(errorResponse(e, logger));
  }
}
