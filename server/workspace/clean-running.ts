import { lchown, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { UserWorkspace } from './browser/user-workspace';
import { SHELL_CACHE, shellConfig } from './shell/config';
import { peekSandbox } from './shell/registry';

export type CleanupScope = 'cache' | 'sites';

/**
 * Empties a folder but keeps it (the browser and tools expect it to exist), and what `keep` names.
 * A folder that turned out to be a symbolic link (the shell may make one) is removed, never
 * followed; entries inside are removed without following links either (rm works on the link).
 * Only called on folders no process of the user's is writing to at that moment (see below).
 */
async function empty(dir: string, keep: (name: string) => boolean = () => false) {
  const st = await lstat(dir).catch(() => null);
  if (st && !st.isDirectory()) await rm(dir, { force: true });
  else if (st) {
    const entries = await readdir(dir).catch(() => [] as string[]);
    await Promise.all(entries.filter((e) => !keep(e)).map((e) => rm(path.join(dir, e), { recursive: true, force: true })));
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/** Whether every folder between `base` and `rel`'s last part is a plain folder (or absent), never a link. */
async function plainFoldersTo(base: string, rel: string): Promise<boolean> {
  const parts = rel.split('/').slice(0, -1);
  let at = base;
  for (const part of parts) {
    at = path.join(at, part);
    const st = await lstat(at).catch(() => null);
    if (st && !st.isDirectory()) return false;
  }
  return true;
}

/**
 * POST /workspace/cleanup's work (spec document 2), in the process that runs the user's browser
 * (cleanup.ts checks the caller and starts it): `cache` clears the browser's HTTP cache (through
 * the running browser, so Chromium never finds files pulled from under it), the home folder's
 * caches and temporary files (the browser's and the shell programs'), and the shell sandbox's
 * /tmp; `sites` also removes the local working copies of sites (home/sites, fetched again when
 * next needed). Sign-ins (cookies, site storage), downloads and every other file of the user stay.
 *
 * The home folder is writable from the sandbox, so Steward never walks it while a sandbox
 * process could swap a folder for a link: a sandbox running a command or a job cleans for itself,
 * in its own view of the files (where a link leads nowhere outside); an idle one is stopped
 * first (which also empties its /tmp) and Steward empties the folders.
 */
export async function cleanRunningWorkspace(ws: UserWorkspace, scope: CleanupScope) {
  ws.touch();
  const page = ws.activePage() ?? (await ws.context.newPage());
  const session = await ws.context.newCDPSession(page);
  try {
    await session.send('Network.clearBrowserCache');
  } finally {
    await session.detach().catch(() => undefined);
  }
  // The running browser's singleton socket lives in its temporary folder: it stays.
  await empty(ws.dirs.tmp, (name) => name.startsWith('org.chromium.'));
  // The browser's caches (home/.cache) and the shell programs' (pip, npm...: home/.local/cache).
  const homeFolders = ['.cache', SHELL_CACHE, ...(scope === 'sites' ? ['sites'] : [])];
  const sandbox = peekSandbox(ws.accountId, ws.userId);
  if (sandbox?.busy) {
    await sandbox.file({ op: 'clean', paths: homeFolders });
  } else {
    await sandbox?.stop();
    const { hostUid, hostGid } = shellConfig();
    for (const folder of homeFolders) {
      // A folder on the way that is a link (the shell may have made one) leads elsewhere: skipped.
      if (!(await plainFoldersTo(ws.dirs.home, folder))) continue;
      await empty(path.join(ws.dirs.home, folder));
      // The sandbox's own host user keeps writing there (pip, npm caches), in the folders made on the way too.
      if (hostUid === null || hostGid === null || folder === '.cache') continue;
      const parts = folder.split('/');
      for (let i = 1; i <= parts.length; i++) await lchown(path.join(ws.dirs.home, ...parts.slice(0, i)), hostUid, hostGid);
    }
  }
}
