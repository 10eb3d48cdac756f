import type { Tx } from '@/db/client';
import { targetsFor } from './coverage';
import { figures, keyOf, limitOf, readUsageRows } from './usage-rows';

/** Whether a call of the user could start budget-wise now: no budget covering them is spent (reservations in flight aside). */
export async function userHasRoom(tx: Tx, accountId: string, userId: string, now = new Date()): Promise<boolean> {
  const targets = await targetsFor(tx, accountId, userId, now);
  const rows = await readUsageRows(tx, targets);
  return targets.every((t) => figures(rows.get(keyOf(t))).spent < limitOf(t, rows.get(keyOf(t))));
}
