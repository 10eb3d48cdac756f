import type { Tx } from '@/db/client';
import { peekWorkspace } from './browser/manager';
import { recordSnapshot } from './snapshots';
import { noBrowser } from './snapshots-sample';

/** A snapshot taken by the shell's manager: the browser's figures too when it runs, so either manager records the whole workspace. */
export async function recordShellSnapshot(db: Tx, o: { accountId: string; userId: string }): Promise<boolean> {
  const ws = peekWorkspace(o.accountId, o.userId);
  return recordSnapshot(db, o, ws ? await ws.measure() : noBrowser());
}
