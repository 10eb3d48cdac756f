import { consoleRoles, type ConsoleRole } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { forbidden } from '@/server/http/errors';

export { consoleRoles, type ConsoleRole };

/**
 * What each console role may do (spec 6: `viewer` reads only). A developer changes the account's
 * settings; an owner also manages who is a console member. Ranked, so a higher role does all a
 * lower one does.
 */
const RANK: Record<ConsoleRole, number> = { viewer: 0, developer: 1, owner: 2 };

export const ROLE_LABELS: Record<ConsoleRole, string> = { owner: 'Owner', developer: 'Developer', viewer: 'Viewer' };

/** Whether a console role reaches `need`. */
export const roleReaches = (role: ConsoleRole, need: ConsoleRole) => RANK[role] >= RANK[need];

/** The console member acting, if this actor is one. */
export const consoleCredential = (actor: Actor) => (actor.credential.kind === 'console' ? actor.credential : null);

/** 403 `console_role_required` unless the actor is a console member with at least `need`. */
export function requireConsoleRole(actor: Actor, need: ConsoleRole): void {
  const c = consoleCredential(actor);
  if (!c || !roleReaches(c.role, need)) {
    throw forbidden(need === 'owner' ? 'Only console owners manage console members' : 'Your console role reads only: changes need the developer or owner role', 'console_role_required');
  }
}
