import type { Db } from '@/db/client';
import { and, eq, isNull } from 'drizzle-orm';
import { users, type UserRow } from '@/db/schema';
import { recordAudit } from '@/server/audit/record';
import type { RequestMeta } from '@/server/audit/request-meta';
import { AppError } from '@/server/http/errors';

/*
 * Sign-ins and sign-outs of the hosted app in the audit log (spec 5: sign_in.succeeded,
 * sign_in.failed; SAML refusals as saml.failed). A sign-in has no transaction of its own to join:
 * each event is its own statement, written when the outcome is known.
 */

type Person = Pick<UserRow, 'id' | 'email' | 'accountId' | 'organizationId'>;

/** The user's first sign-in to the hosted app (spec 1, User `firstLoginAt`): written once, never moved. */
export async function noteFirstLogin(db: Db, userId: string, at = new Date()): Promise<void> {
  await db.update(users).set({ firstLoginAt: at }).where(and(eq(users.id, userId), isNull(users.firstLoginAt)));
}

export async function recordSignIn(db: Db, user: Person, method: 'email' | 'saml', request: RequestMeta | null): Promise<void> {
  await noteFirstLogin(db, user.id);
  await recordAudit(db, { type: 'user', id: user.id, email: user.email }, 'sign_in.succeeded', { type: 'user', id: user.id }, { accountId: user.accountId, organizationId: user.organizationId, after: { method }, request });
}

export async function recordSignOut(db: Db, who: { sub: string; email: string; accountId: string; method: string }, request: RequestMeta | null): Promise<void> {
  await recordAudit(db, { type: 'user', id: who.sub, email: who.email }, 'sign_out.succeeded', { type: 'user', id: who.sub }, { accountId: who.accountId, after: { method: who.method }, request });
}

/** A refused sign-in: who it was for (the address asked about, when known) and why. */
export async function recordSignInFailure(db: Db, accountId: string, email: string | null, reason: string, method: 'email' | 'saml', request: RequestMeta | null): Promise<void> {
  await recordAudit(db, { type: 'user', id: null, email }, 'sign_in.failed', { type: 'user', id: null }, { accountId, after: { method, reason: reason.slice(0, 300) }, request });
}

/**
 * A SAML response the ACS refused (403 sso_rejected, 400, account_blocked): recorded as saml.failed
 * with the reason, then the refusal goes on to the client. Anything unexpected is not an audit
 * matter and passes untouched.
 */
export async function recordSamlRefusal(db: Db, accountId: string, error: unknown, request: RequestMeta | null): Promise<never> {
  if (error instanceof AppError && error.status < 500) {
    await recordAudit(db, { type: 'user', id: null }, 'saml.failed', { type: 'account', id: accountId }, { accountId, after: { code: error.code, reason: error.message.slice(0, 300) }, request }).catch(() => {});
  }
  throw error;
}
