import type { ConsoleRole, UserRow } from '@/db/schema';

/** Who is calling, resolved once per request from the credential. Services take it explicitly. */
export type Actor = {
  accountId: string;
  credential:
    | { kind: 'api_key'; keyId: string }
    | { kind: 'certificate'; kid: string; email: string | null }
    | { kind: 'portal_session'; method: 'email' | 'saml' }
    /** A task run acting for the task's owner, with exactly the owner's rights. */
    | { kind: 'agent'; taskId: string; runId: string }
    /**
     * The owner writing to their assistant on a channel that proved who they are (a mail with an
     * aligned signature, a signed provider webhook). It may converse and message tasks; it is not
     * a person's decision (approvals refuse it: a From line or a number can be forged elsewhere).
     */
    | { kind: 'channel'; channel: string }
    /**
     * Proof of one decision on one cart version, carried by a channel that authenticated the
     * owner for it: a signed button press from their linked Slack or Teams identity, or a code
     * texted for that version answered from their verified number. approvals/decide.ts accepts
     * it for that cart and contentHash only; everything else refuses it.
     */
    | { kind: 'decision'; via: 'slack_button' | 'teams_button' | 'telegram_button' | 'text_code'; cartId: string; contentHash: string }
    /**
     * A console member (server/console/) working on their account: account-wide like an account
     * key, never a person acting as a user (no `user`), so it cannot approve or act for anyone.
     * The audit log names the member (a user) as the actor.
     */
    | { kind: 'console'; memberId: string; userId: string; email: string; role: ConsoleRole };
  /** Fixed when the key was created. Certificate tokens act account-wide. */
  level: 'account' | 'organization' | 'user';
  /** Set for an organization-scoped key. */
  organizationId: string | null;
  /** The user acted as: a user key's user, or the X-User-Email user of an account key. */
  user: UserRow | null;
  actingVia: 'user_key' | 'x_user_email' | 'portal_session' | null;
  scopes: string[];
  account: { killSwitch: boolean; rateLimitReads: number | null; rateLimitWrites: number | null };
};

/** A caller acting as a user: what endpoints of auth level `user` receive. */
export type UserActor = Actor & { user: UserRow };

export const actsAsUser = (a: Actor): a is UserActor => a.user !== null;

/** An account-level credential used without X-User-Email: reaches the whole account. */
export const isAccountWide = (a: Actor) => a.level === 'account' && a.user === null;

/** The organization this caller administers, if any: an organization key's, or an acting organization admin's. */
export function administeredOrganization(a: Actor): string | null {
  if (a.level === 'organization') return a.organizationId;
  if (a.user && a.user.organizationId && a.user.organizationRole === 'admin') return a.user.organizationId;
  return null;
}
