import type { Tx } from '@/db/client';

/**
 * Moves the links between tasks and a contact to another contact (merge), inside the merge's
 * transaction. Tasks sit above contacts (docs/architecture.md), so this area cannot reach their
 * task_contacts table by import: the tasks area registers the move here at start-up, from the
 * entry floor. Until it does there are no links, so there is nothing to move.
 */
export type MoveTaskLinks = (tx: Tx, fromContactId: string, toContactId: string) => Promise<void>;

const noLinks: MoveTaskLinks = async () => {};
let move = noLinks;

/** Called once by the tasks area. */
export function registerTaskLinks(moveLinks: MoveTaskLinks): void {
  move = moveLinks;
}

export const moveTaskLinks: MoveTaskLinks = (tx, fromContactId, toContactId) => move(tx, fromContactId, toContactId);
