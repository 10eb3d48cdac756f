import type { Db } from '@/db/client';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

/**
 * Open tasks an assistant works on, and moving them to another assistant. Tasks do not
 * exist yet, so there are none; the tasks capability answers here, and release already
 * asks before it deletes an assistant.
 */
export async function openTaskCount(_tx: Tx, _assistantId: string): Promise<number> {
  return 0;
}

export async function moveOpenTasks(_tx: Tx, _fromAssistantId: string, _toAssistantId: string): Promise<void> {}
