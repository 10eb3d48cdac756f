import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { roundCredits, targetsFor } from './coverage';
import { presentCovering } from './present';
import { figures, keyOf, limitOf, readUsageRows } from './usage-rows';

/** GET /credits: every budget covering the calling user (and their share of a team's), with this period's figures. */
export async function userCredits(db: Db, actor: UserActor, now = new Date()) {
  const targets = await targetsFor(db, actor.accountId, actor.user.id, now);
  const rows = await readUsageRows(db, targets);
  const budgets = targets.map((t) => presentCovering(t, rows.get(keyOf(t)), now));
  const blocked = targets.some((t) => figures(rows.get(keyOf(t))).spent >= limitOf(t, rows.get(keyOf(t))));
  return {
    ok: true as const,
    credits: {
      userId: actor.user.id,
      budgets,
      remainingCredits: budgets.length ? roundCredits(Math.min(...budgets.map((b) => b.remainingCredits))) : null,
      blocked,
    },
  };
}
