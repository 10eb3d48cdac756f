import { chmod, lchown, lstat, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@/server/http/errors';
import type { WorkspaceDirs } from '../browser/launch';
import { workspaceConfig } from '../browser/config';
import { BROWSER_PRIVATE, BROWSER_SHARED_READ_ONLY } from './config';

/*
 * When Steward runs as root the sandbox runs as another host user (STEWARD_SHELL_UID), and
 * bubblewrap, running as that user, must reach the home folder to mount it. So the home belongs
 * to that user, and the folders leading to it (the workspaces root, the account's and the
 * user's folders) let others pass through (0711: search, never list). Every folder beside the
 * home stays Steward's and closed (the Chromium profile, downloads in flight).
 */

const mode = async (p: string) => (await stat(p)).mode & 0o777;

export async function prepareHome(dirs: WorkspaceDirs, hostUid: number | null, hostGid: number | null): Promise<void> {
  await mkdir(dirs.home, { recursive: true, mode: 0o700 });
  // A home that is a symbolic link would mount whatever it points at.
  if ((await lstat(dirs.home)).isSymbolicLink()) throw new AppError(503, 'shell_unavailable', 'The workspace home folder is not a plain folder');
  // The browser's folders become mount points inside (config.ts): real folders, whatever was there.
  for (const name of [...BROWSER_PRIVATE, ...BROWSER_SHARED_READ_ONLY]) {
    const p = path.join(dirs.home, name);
    const st = await lstat(p).catch(() => null);
    if (st && !st.isDirectory()) await rm(p, { force: true });
    await mkdir(p, { recursive: true, mode: 0o700 });
  }
  if (hostUid === null || hostGid === null) return;
  // lchown: never through a link (none is left above, but the home is the sandbox's to write).
  for (const d of [dirs.home, dirs.downloads]) {
    const st = await lstat(d);
    if (st.isDirectory() && st.uid !== hostUid) await lchown(d, hostUid, hostGid);
  }
  await chmod(dirs.home, 0o700);
  const root = workspaceConfig().rootDir;
  for (const d of [root, path.dirname(dirs.base), dirs.base]) {
    const m = await mode(d);
    if ((m & 0o001) === 0) await chmod(d, m | 0o001);
  }
  // Above the workspaces root is the operator's: say what to change rather than changing it.
  for (let d = path.dirname(root); ; d = path.dirname(d)) {
    if (((await mode(d)) & 0o001) === 0) {
      throw new AppError(503, 'shell_unavailable', `The workspace shell runs as user ${hostUid}, who cannot pass through ${d}: allow it (chmod o+x) or set STEWARD_WORKSPACE_DIR elsewhere`);
    }
    if (d === path.dirname(d)) break;
  }
}
