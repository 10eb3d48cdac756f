import type { Db } from '@/db/client';
import type { DriveFileRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';

/**
 * Whether a task shares a file with a user (its task_files and collaborators). Tasks sit above
 * files (docs/architecture.md), so the tasks area registers this answer at start-up, from the
 * entry floor. Until it does no task shares anything.
 */
export type SharedThroughTask = (db: Db, userId: string, fileId: string) => Promise<boolean>;

const sharedWithNoOne: SharedThroughTask = async () => false;
let sharedThroughTask = sharedWithNoOne;

/** Called once by the tasks area. */
export function registerFileSharing(shared: SharedThroughTask): void {
  sharedThroughTask = shared;
}

/**
 * Who may read a file: its owner, and the people a task shares it with. Every read path asks
 * this one function.
 */
export async function canReadFile(db: Db, actor: Actor, file: DriveFileRow): Promise<boolean> {
  if (file.accountId !== actor.accountId || !actor.user) return false;
  if (file.userId === actor.user.id) return true;
  return sharedThroughTask(db, actor.user.id, file.id);
}
