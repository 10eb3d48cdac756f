import type { Db } from '@/db/client';
import type { ConsoleMemberRow } from '@/db/schema';
import type { Actor, UserActor } from '@/server/access/actor';
import { consoleMembership } from './members';

/**
 * The actor of a console request: the signed-in person's membership turned into an account-wide
 * actor of their own account (what the admin CLI and an account key reach), with no user acted
 * as, so nothing in the console can approve or act for a person. Its role is checked per
 * procedure (roles.ts); services see an account-wide caller and apply their own rules.
 */
export function consoleActor(session: UserActor, member: ConsoleMemberRow): Actor {
  return {
    accountId: session.accountId,
    credential: { kind: 'console', memberId: member.id, userId: session.user.id, email: session.user.email, role: member.role },
    level: 'account',
    organizationId: null,
    user: null,
    actingVia: null,
    scopes: [],
    account: session.account,
  };
}

/** The console actor of a signed-in person, or null when they are not a console member of the account. */
export async function consoleActorFor(db: Db, session: UserActor): Promise<{ actor: Actor; member: ConsoleMemberRow } | null> {
  const member = await consoleMembership(db, session.accountId, session.user.id);
  return member ? { actor: consoleActor(session, member), member } : null;
}
