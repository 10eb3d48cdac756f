import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { forbidden } from '@/server/http/errors';
import { workspaceFor } from './browser/manager';

export type CleanupScope = 'cache' | 'sites';

/** Empties a folder but keeps it (the browser and tools expect it to exist), and what `keep` names. */
async function empty(dir: string, keep: (name: string) => boolean = () => false) {
  const entries = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(entries.filter((e) => !keep(e)).map((e) => rm(path.join(dir, e), { recursive: true, force: true })));
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/**
 * POST /workspace/cleanup (spec document 2): `cache` clears the browser's HTTP cache (through
 * the running browser, so Chromium never finds files pulled from under it), the home folder's
 * caches and temporary files; `sites` also removes the local working copies of sites (home/sites,
 * fetched again when next needed). Sign-ins (cookies, site storage), downloads and every other
 * file of the user stay. Starts the workspace when it is not running; a person must be on the
 * call (403 otherwise: a task run or an account-wide credential cannot wipe someone's browser).
 */
export async function cleanupWorkspace(db: Db, actor: Actor, scope: CleanupScope) {
  if (!actor.user || actor.credential.kind === 'certificate' || actor.credential.kind === 'agent') {
    throw forbidden('Cleaning a workspace needs an end user on the call: use a user key, or an account key with X-User-Email', 'end_user_required');
  }
  const ws = (await workspaceFor(actor.accountId, actor.user.id, { start: true, db }))!;
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
  await empty(path.join(ws.dirs.home, '.cache'));
  if (scope === 'sites') await empty(ws.dirs.sites);
  return { ok: true as const, scope };
}
