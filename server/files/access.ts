import type { Db } from '@/db/client';
import type { DriveFileRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';

/**
 * Who may read a file: its owner, and the people a task shares it with. Tasks do not
 * exist yet, so sharing finds no one; the tasks capability answers here from its
 * task_files and collaborators, and every read path already asks this one function.
 */
export async function canReadFile(_db: Db, actor: Actor, file: DriveFileRow): Promise<boolean> {
  if (file.accountId !== actor.accountId || !actor.user) return false;
  if (file.userId === actor.user.id) return true;
  return sharedThroughTask(_db, actor.user.id, file.id);
}

async function sharedThroughTask(_db: Db, _userId: string, _fileId: string): Promise<boolean> {
  return false;
}
