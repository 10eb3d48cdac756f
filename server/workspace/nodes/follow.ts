import { readlink, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '@/db/client';
import { AppError } from '@/server/http/errors';
import { countWorkspaceForward, countWorkspaceTakeover } from '@/server/http/metrics';
import { callNode, NodeUnreachable } from '@/server/http/node-link';
import { logger } from '@/server/logger';
import { workspaceDirs } from '../browser/launch';
import { peekWorkspace, runningWorkspaces, workspaceFor } from '../browser/manager';
import { browserOps, type OpArgs, type OpName, type OpResult } from './browser-ops';
import { claimHolder, findHolder, heldHere, releaseHolder, type Holder } from './holders';
import { HEARTBEAT_MS, markGone, thisNode, type ThisNode } from './this-node';

/*
 * The workspace follows its user (spec document 6, Many machines). Every use of a user's browser
 * goes through onUserBrowser: in a deployment of several processes (STEWARD_NODE_URL) it runs the
 * operation in the process that holds the browser, whichever process was asked. The asking
 * process has already checked the caller (services do, with the caller's rights); the holder
 * only runs the browser's part. No holder, or a holder that is gone: this process claims the
 * browser (one statement; two never both win) and starts it here, on the profile every process
 * reaches (STEWARD_WORKSPACE_DIR on shared storage, docs/deploy.md). So a request is forwarded,
 * or served here, never refused because another process has the browser.
 *
 * A holder that refuses the connection is gone (nothing listens at its address): it is marked so
 * and its browser starts here. A holder that does not answer at all is gone only once its
 * heartbeat lapses (this-node.ts); until then the caller gets 503 `workspace_unavailable` with
 * Retry-After, so a network split never makes two browsers on one profile.
 */

const ATTEMPTS = 3;

const unavailable = () =>
  new AppError(503, 'workspace_unavailable', 'The process running this workspace is not answering; retry in a few seconds', { retryAfterSeconds: 5 });

/** This process's node (null without STEWARD_NODE_URL) and, once, the check that keeps what it runs in step with the table. */
export async function ensureNode(): Promise<ThisNode | null> {
  const n = await thisNode();
  if (n && !reconciling) {
    reconciling = setInterval(() => void reconcile(n), HEARTBEAT_MS);
    reconciling.unref();
  }
  return n;
}
let reconciling: NodeJS.Timeout | undefined;

/**
 * Runs `name` on the user's browser, wherever it is (see above). `db` receives the usage record
 * and snapshots of a browser started here (default: DATABASE_URL's).
 */
export async function onUserBrowser<K extends OpName>(accountId: string, userId: string, name: K, args: OpArgs<K>, db?: Db): Promise<OpResult<K>> {
  const n = await ensureNode();
  if (!n) return runHere(null, accountId, userId, name, args, db);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (peekWorkspace(accountId, userId)) return runHere(n, accountId, userId, name, args, db);
    const holder = await findHolder(n, accountId, userId);
    if (!holder || holder.nodeId === n.id || holder.gone || !holder.url) {
      // Nobody runs it: an operation that only looks answers what it answers for a stopped browser.
      if (!browserOps[name].start) return runHere(n, accountId, userId, name, args, db);
      const claim = await claimHolder(n, accountId, userId);
      if (!claim.claimed) continue;
      return startHere(n, claim.from, accountId, userId, name, args, db);
    }
    try {
      const value = await callNode<OpResult<K>>(n.link, holder.url, 'workspace', { op: name, accountId, userId, args }, browserOps[name].timeoutMs);
      countWorkspaceForward(name, 'ok');
      return value;
    } catch (e) {
      if (e instanceof NodeUnreachable) {
        countWorkspaceForward(name, e.refused ? 'refused' : 'unreachable');
        if (e.refused) {
          await markGone(n, holder.nodeId);
          continue;
        }
        throw unavailable();
      }
      if (e instanceof AppError && e.code === 'workspace_moved') continue;
      if (e instanceof AppError && e.code === 'node_call_failed') {
        countWorkspaceForward(name, 'failed');
        // Cut off mid-call: if the holder is gone now, its browser went with it, and the operation
        // starts over here on a fresh one; if it still answers, the caller is told to retry.
        if (await refusesNow(n, holder)) {
          await markGone(n, holder.nodeId);
          continue;
        }
      }
      throw e;
    }
  }
  throw unavailable();
}

/** Whether the holder's address now refuses connections (the process is gone). */
async function refusesNow(n: ThisNode, holder: Holder): Promise<boolean> {
  try {
    await callNode(n.link, holder.url!, 'ping', {}, 3_000);
    return false;
  } catch (e) {
    return e instanceof NodeUnreachable && e.refused;
  }
}

/**
 * An operation another process sent here because the table named this process the holder. When
 * the browser is not running here any more, it may be started here (the holder row is claimed
 * first); when another live process holds it now, the sender is told to look again.
 */
export async function runForPeer<K extends OpName>(accountId: string, userId: string, name: K, args: OpArgs<K>): Promise<OpResult<K>> {
  const n = await ensureNode();
  if (!n) throw new AppError(404, 'not_found', 'This process does not take part in a deployment of several processes (no STEWARD_NODE_URL)');
  if (peekWorkspace(accountId, userId)) return runHere(n, accountId, userId, name, args);
  const holder = await findHolder(n, accountId, userId);
  const elsewhere = holder && holder.nodeId !== n.id && !holder.gone;
  if (elsewhere) throw new AppError(409, 'workspace_moved', 'Another process holds this workspace now');
  if (!browserOps[name].start) return runHere(n, accountId, userId, name, args);
  const claim = await claimHolder(n, accountId, userId);
  if (!claim.claimed) throw new AppError(409, 'workspace_moved', 'Another process holds this workspace now');
  return startHere(n, claim.from, accountId, userId, name, args);
}

/**
 * The browser for the live view, which runs in this process (the upgrade was forwarded here when
 * another process holds it): started here if nobody else runs it.
 */
export async function browserHere(accountId: string, userId: string) {
  const n = await ensureNode();
  if (n && !peekWorkspace(accountId, userId)) {
    const claim = await claimHolder(n, accountId, userId);
    if (!claim.claimed) throw new AppError(409, 'workspace_moved', 'Another process holds this workspace now; open the view again');
    await takeOver(n, claim.from, accountId, userId);
  }
  return workspaceFor(accountId, userId, { start: true, onStop: n ? () => releaseHolder(n, accountId, userId) : undefined });
}

/**
 * Where the live view of this user's browser is served: at the holder (its URL), or here (null).
 * "Here" is settled before the view is admitted: this process claims the holder row when nobody
 * else live holds it, so a browser another request is starting at the same moment elsewhere is
 * found and the view forwarded to it, never a second one started here.
 */
export async function liveViewHolder(accountId: string, userId: string): Promise<{ url: string; nodeId: string } | null> {
  const n = await ensureNode();
  if (!n) return null;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (peekWorkspace(accountId, userId)) return null;
    const holder = await findHolder(n, accountId, userId);
    if (holder && holder.nodeId !== n.id && !holder.gone && holder.url) return { url: holder.url, nodeId: holder.nodeId };
    const claim = await claimHolder(n, accountId, userId);
    if (claim.claimed) {
      await takeOver(n, claim.from, accountId, userId);
      return null;
    }
  }
  throw unavailable();
}

/** A live view that was not admitted after all: a claim it made for a browser that never started is let go. */
export async function releaseIfIdle(accountId: string, userId: string): Promise<void> {
  const n = await ensureNode();
  if (n && !peekWorkspace(accountId, userId)) await releaseHolder(n, accountId, userId);
}

/** The live view's holder refused the connection: it is gone, and the view is served here. */
export async function holderRefused(nodeId: string): Promise<void> {
  const n = await ensureNode();
  if (n) await markGone(n, nodeId);
}

async function runHere<K extends OpName>(n: ThisNode | null, accountId: string, userId: string, name: K, args: OpArgs<K>, db?: Db): Promise<OpResult<K>> {
  const op = browserOps[name];
  let ws = peekWorkspace(accountId, userId);
  if (!ws && op.start) ws = await workspaceFor(accountId, userId, { start: true, db, onStop: n ? () => releaseHolder(n, accountId, userId) : undefined });
  // Each operation's `run` is typed by its own arguments; the map erases which one `name` is.
  return (op.run as (w: typeof ws, a: OpArgs<K>) => Promise<OpResult<K>>)(ws, args);
}

/** This process holds the row now: start the browser here (the row goes again if it cannot start). */
async function startHere<K extends OpName>(n: ThisNode, from: string | null, accountId: string, userId: string, name: K, args: OpArgs<K>, db?: Db): Promise<OpResult<K>> {
  try {
    await takeOver(n, from, accountId, userId);
    return await runHere(n, accountId, userId, name, args, db);
  } finally {
    if (!peekWorkspace(accountId, userId)) await releaseHolder(n, accountId, userId).catch(() => undefined);
  }
}

/**
 * Taking over from a process that is gone: Chromium's lock on the profile names the host and
 * process that held it. On this host Chromium sees for itself that the process is dead; a lock
 * from another host it would believe, so it is removed (the table decided the holder is gone).
 */
async function takeOver(n: ThisNode, from: string | null, accountId: string, userId: string) {
  if (!from) return;
  countWorkspaceTakeover();
  logger.info({ accountId, userId, from, node: n.id }, 'workspace: starting the browser here in place of a process that is gone');
  const profile = workspaceDirs(accountId, userId).profile;
  const lock = await readlink(path.join(profile, 'SingletonLock')).catch(() => null);
  const host = lock?.replace(/-\d+$/, '');
  if (lock && host !== os.hostname()) {
    await Promise.all(['SingletonLock', 'SingletonCookie', 'SingletonSocket'].map((f) => rm(path.join(profile, f), { force: true })));
  }
}

/**
 * Every heartbeat: a browser running here whose row is not this process's any more (another
 * process took this one for gone and started its own) is closed; one whose row vanished is
 * claimed again, or closed when someone else has it.
 */
async function reconcile(n: ThisNode) {
  try {
    const running = runningWorkspaces();
    if (!running.length) return;
    const held = await heldHere(n);
    for (const ws of running) {
      if (held.has(`${ws.accountId}/${ws.userId}`)) continue;
      const claim = await claimHolder(n, ws.accountId, ws.userId);
      if (claim.claimed) continue;
      logger.warn({ accountId: ws.accountId, userId: ws.userId }, 'workspace: another process holds this browser now; closing it here');
      await ws.stop();
    }
  } catch (err) {
    logger.warn({ err }, 'workspace: checking the browsers this process holds failed');
  }
}
