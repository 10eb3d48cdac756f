import { z } from 'zod';
import { consumeStartRequest } from '@/server/sign-in/link-limit';
import { portalSummary } from '@/server/sign-in/whoami';
import { signInRoute } from '@/server/sign-in/sign-in-method';
import { startSamlSignIn } from '@/server/sign-in/saml-start';
import { Email } from '@/server/user-record/contracts';
import { publicProcedure, router } from '../init';

export const authRouter = router({
  /**
   * The first sign-in step: where this email signs in (its organization's IdP, or an email link).
   * Limited per address and per client IP like the link itself: each call stores an SSO request
   * and tells apart addresses at SSO domains.
   */
  start: publicProcedure.input(z.object({ email: Email, returnTo: z.string().max(500).optional() })).mutation(async ({ ctx, input }) => {
    const email = await consumeStartRequest(ctx.db, ctx.account.id, input.email, ctx.clientIp);
    const route = await signInRoute(ctx.db, ctx.account.id, email);
    if (route.method === 'email') return { method: 'email' as const };
    const { redirectUrl } = await startSamlSignIn(ctx.db, route.organization, ctx.site.origin, input.returnTo);
    return { method: 'saml' as const, redirectUrl };
  }),

  /** Who is signed in, with their organization and teams (null when signed out). */
  me: publicProcedure.query(async ({ ctx }) =>
    ctx.actor?.user
      ? {
          ...(await portalSummary(ctx.db, ctx.actor)),
          account: { name: ctx.account.name },
          // Every date the app shows is in the person's own timezone and locale (issue 45).
          prefs: { timezone: ctx.actor.user.timezone, locale: ctx.actor.user.locale },
          // preferences.desktop.enabled: the app tells the person by a desktop notification when something new needs them.
          desktopNotices: (ctx.actor.user.preferences as { desktop?: { enabled?: unknown } } | null)?.desktop?.enabled === true,
        }
      : null,
  ),
});
