import { and, eq } from 'drizzle-orm';
import type { NextAuthOptions } from 'next-auth';
import EmailProvider from 'next-auth/providers/email';
import type { Db } from '@/db/client';
import { users, type AccountRow } from '@/db/schema';
import { sendMail } from '@/server/mail/mailer';
import { mayRequestLink, portalAdapter } from './portal-adapter';
import { assertEmailSignInAllowed } from './sign-in-method';
import { signInAddress } from './sign-in-address';
import { SESSION_MAX_AGE_S, sessionSecret, sessionVersionCurrent, tokenFor, type PortalToken } from './session';
import type { RequestMeta } from '@/server/audit/request-meta';
import { recordSignIn, recordSignInFailure } from './sign-in-audit';

/** Sign-in links last 15 minutes and work once. */
const LINK_MAX_AGE_S = 15 * 60;

/**
 * next-auth for one account's hosted app (chosen by Host): email links sent through the mail
 * adapter, JWT sessions in an http-only cookie (Secure on https), next-auth's CSRF double-submit
 * token on every POST. SAML sessions are minted by the ACS in the same format.
 */
export async function authOptions(db: Db, account: AccountRow, site: { origin: string; secure: boolean; request?: RequestMeta }): Promise<NextAuthOptions> {
  const request = site.request ?? null;
  const refused = (email: string | null, reason: string) => recordSignInFailure(db, account.id, email, reason, 'email', request).catch(() => {});
  return {
    secret: await sessionSecret(db),
    adapter: withAuditedLinks(portalAdapter(db, account), refused),
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    useSecureCookies: site.secure,
    pages: { signIn: '/sign-in', verifyRequest: '/sign-in/check-email', error: '/sign-in' },
    providers: [
      EmailProvider({
        maxAge: LINK_MAX_AGE_S,
        // The same strict form the route's rate limit counted: a single plain address, or no link at all.
        normalizeIdentifier: signInAddress,
        async sendVerificationRequest({ identifier, url }) {
          // Links always point at the account's own origin, never at whatever Host the request claimed.
          const link = new URL(url);
          const canonical = new URL(site.origin);
          link.protocol = canonical.protocol;
          link.host = canonical.host;
          const known = await mayRequestLink(db, account, identifier);
          await sendMail(db, {
            accountId: account.id,
            to: identifier,
            subject: known ? 'Your sign-in link' : 'Sign-in attempt',
            text: known
              ? `Sign in to ${account.name} with this link (valid for 15 minutes, once):\n\n${link.toString()}\n\nIf you did not ask for it, ignore this message.`
              : `Someone asked to sign in to ${account.name} with this address, but it has no account there. If this was you, ask your administrator to add you.`,
            redact: known ? [link.toString()] : [],
          });
        },
      }),
    ],
    callbacks: {
      async signIn({ user, account: via, email }) {
        // The address the link was asked for (next-auth's identifier) and the user's own primary one.
        const addresses = [...new Set([via?.providerAccountId, user.email].filter((a): a is string => Boolean(a)).map((a) => a.toLowerCase()))];
        try {
          for (const a of addresses) await assertEmailSignInAllowed(db, account.id, a);
        } catch {
          // Unknown addresses get a mail saying so: the page looks the same, so it reveals nothing.
          // (The route refuses this with 403 sso_required first; this guards any other way in.)
          await refused(addresses[0] ?? null, 'sso_required: this address must sign in through its organization’s SSO');
          return '/sign-in?error=sso_required';
        }
        if (email?.verificationRequest) return true;
        const u = await userOf(db, account, user.id);
        if (u && u.status !== 'active') {
          await refused(u.email, 'account_blocked: the user is inactive or suspended');
          return '/sign-in?error=account_blocked';
        }
        return true;
      },
      async jwt({ token, user }) {
        if (user) {
          const u = await userOf(db, account, user.id);
          if (u) return { ...token, ...tokenFor(u, 'email') };
          return token;
        }
        // Every read of the session checks it is still current: a revoked one ends here (next-auth
        // answers an empty session and clears the cookie when this throws).
        const u = typeof token.sub === 'string' ? await userOf(db, account, token.sub) : null;
        if (!u || u.status !== 'active' || token.accountId !== account.id || !sessionVersionCurrent(token as Partial<PortalToken>, u)) throw new Error('session revoked');
        return token;
      },
      async session({ session, token }) {
        return { ...session, user: { ...session.user, id: token.sub, accountId: token.accountId } };
      },
    },
    events: {
      async signIn({ user }) {
        const u = await userOf(db, account, user.id);
        if (u) await recordSignIn(db, u, 'email', request);
      },
    },
  };
}

/** The adapter, with every link that cannot sign anyone in (unknown, used or expired) recorded as sign_in.failed. */
function withAuditedLinks(adapter: ReturnType<typeof portalAdapter>, refused: (email: string | null, reason: string) => Promise<void>): ReturnType<typeof portalAdapter> {
  const use = adapter.useVerificationToken!.bind(adapter);
  return {
    ...adapter,
    async useVerificationToken(params) {
      const row = await use(params);
      if (!row) await refused(params.identifier, 'the sign-in link is unknown or was already used');
      else if (row.expires.getTime() < Date.now()) await refused(params.identifier, 'the sign-in link has expired');
      return row;
    },
  };
}

async function userOf(db: Db, account: AccountRow, id: string) {
  const [u] = await db.select().from(users).where(and(eq(users.accountId, account.id), eq(users.id, id)));
  return u ?? null;
}
