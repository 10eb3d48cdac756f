import type { Db } from '@/db/client';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

/**
 * Moves the links between tasks and a contact to another contact (merge). Tasks do not
 * exist yet, so there is nothing to move; the tasks capability fills this in with its
 * task_contacts table, and merge already calls it inside its transaction.
 */
export async function moveTaskLinks(_tx: Tx, _fromContactId: string, _toContactId: string): Promise<void> {}
