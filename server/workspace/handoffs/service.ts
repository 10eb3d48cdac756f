import { and, asc, eq, isNull, lte } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { handoffs, type HandoffRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { AppError, badRequest } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { assertGeneration, controlChanged, lockControl, readControl, setControl } from '../control';
import { ownHandoff, requireHandoffPerson, requireHandoffUser, type HandoffOwner } from './access';
import { handoffBrowser } from './browser-seam';
import { closeHandoff } from './close';
import type { ResolveInput } from './contracts';
import { launchedHandoffTtlMs } from './lifetimes';
import { assertHandoffAllowed } from './policy';
import { presentHandoff } from './present';
import { issueSessionLink } from './session-links';

/*
 * The handoff endpoints (spec document 2, Handoff states and Workspace endpoints). Every call
 * that changes a handoff locks it, and the user's control row when control moves, so two calls
 * on one handoff never both act; a caller that passes the control generation it read gets 409
 * when control changed meanwhile.
 */

const isOpen = (h: HandoffRow) => h.closedAt === null;
const noLongerOpen = () => badRequest('The handoff is no longer open', undefined, 'handoff_closed');

/** Closes the handoff as expired when its time has come, so an answer never lands on a handoff past its expiry (the sweep does the same on its own). */
async function expireIfDue(db: Db, owner: HandoffOwner, handoffId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const h = await ownHandoff(tx, owner, handoffId, true);
    if (isOpen(h) && h.expiresAt <= now) await closeHandoff(tx, h, { status: 'expired', reason: 'expired' }, now);
  });
}

export async function listActiveHandoffs(db: Db, actor: Actor, now = new Date()) {
  const owner = requireHandoffUser(actor);
  const due = await db
    .select({ id: handoffs.id })
    .from(handoffs)
    .where(and(eq(handoffs.accountId, owner.accountId), eq(handoffs.userId, owner.userId), isNull(handoffs.closedAt), lte(handoffs.expiresAt, now)));
  for (const d of due) await expireIfDue(db, owner, d.id, now);
  const rows = await db
    .select()
    .from(handoffs)
    .where(and(eq(handoffs.accountId, owner.accountId), eq(handoffs.userId, owner.userId), isNull(handoffs.closedAt)))
    .orderBy(asc(handoffs.createdAt), asc(handoffs.id));
  const list = rows.map(presentHandoff);
  return { ok: true as const, handoffs: list, handoff: list.at(-1) ?? null, control: await readControl(db, owner.accountId, owner.userId) };
}

/** Starts the user's browser after the commit; the handoff is `ready` once it runs, `failed` if it cannot start. */
function startInBackground(h: HandoffRow, db: Db): void {
  const browser = handoffBrowser();
  const settle = async (ok: boolean) => {
    if (ok) {
      await db.update(handoffs).set({ status: 'ready' }).where(and(eq(handoffs.id, h.id), eq(handoffs.status, 'starting')));
    } else {
      await db
        .update(handoffs)
        .set({ status: 'failed', closedAt: new Date() })
        .where(and(eq(handoffs.id, h.id), eq(handoffs.status, 'starting')));
    }
  };
  const start = browser ? browser.start(h.accountId, h.userId).then(() => true) : Promise.resolve(false);
  start
    .catch((err: unknown) => {
      logger.warn({ err, handoffId: h.id }, 'handoff: the workspace could not start');
      return false;
    })
    .then(settle)
    .catch((err: unknown) => logger.error({ err, handoffId: h.id }, 'handoff: could not record the workspace start'));
}

export async function launchHandoff(db: Db, actor: Actor, now = new Date()) {
  const owner = requireHandoffPerson(actor);
  await assertHandoffAllowed(db, owner.accountId, owner.userId, null);
  const created = await db.transaction(async (tx) => {
    // One session the user opened at a time: an earlier one still open is replaced.
    const earlier = await tx
      .select()
      .from(handoffs)
      .where(and(eq(handoffs.accountId, owner.accountId), eq(handoffs.userId, owner.userId), isNull(handoffs.taskId), isNull(handoffs.closedAt)))
      .for('update');
    for (const e of earlier) await closeHandoff(tx, e, { status: 'closed', reason: 'superseded' }, now);
    const [h] = await tx
      .insert(handoffs)
      .values({ ...owner, taskId: null, actionType: 'other', prompt: '', status: 'starting', expiresAt: new Date(now.getTime() + launchedHandoffTtlMs()) })
      .returning();
    return h;
  });
  startInBackground(created, db);
  return { ok: true as const, handoffId: created.id, status: 'starting' as const };
}

export async function openSession(db: Db, actor: Actor, handoffId: string, generation?: number, now = new Date()) {
  const owner = requireHandoffPerson(actor);
  await expireIfDue(db, owner, handoffId, now);
  const result = await db.transaction(async (tx) => {
    const h = await ownHandoff(tx, owner, handoffId, true);
    if (!isOpen(h)) throw noLongerOpen();
    await assertHandoffAllowed(tx, owner.accountId, owner.userId, h.targetUrl);
    const current = await lockControl(tx, owner.accountId, owner.userId);
    if (generation !== undefined && generation !== current.generation) throw controlChanged(current);
    const control =
      current.operator === 'user' && current.handoffId === h.id ? current : await setControl(tx, owner.accountId, owner.userId, { operator: 'user', handoffId: h.id });
    if (h.status !== 'active') await tx.update(handoffs).set({ status: 'active' }).where(eq(handoffs.id, h.id));
    const sessionUrl = await issueSessionLink(tx, h, now);
    return { h, control, sessionUrl };
  });
  // "Starts the computer if needed": the live view waits for it.
  handoffBrowser()
    ?.start(owner.accountId, owner.userId)
    .catch((err: unknown) => logger.warn({ err, handoffId }, 'handoff: the workspace could not start for a session'));
  return { ok: true as const, sessionUrl: result.sessionUrl, control: result.control };
}

/** The three answers a person gives; `owner` comes from an API caller or from a consumed session link. */
export async function answerHandoff(
  db: Db,
  owner: HandoffOwner,
  handoffId: string,
  answer: { kind: 'complete' } | { kind: 'decline' } | { kind: 'defer'; message: string; deferMinutes?: number },
  generation?: number,
  now = new Date(),
): Promise<HandoffRow> {
  await expireIfDue(db, owner, handoffId, now);
  return db.transaction(async (tx) => {
    const h = await ownHandoff(tx, owner, handoffId, true);
    if (!isOpen(h)) {
      // complete: "404 session expired or not found"; the others: "400 already closed".
      if (answer.kind === 'complete' && h.status === 'expired') throw new AppError(404, 'session_expired', 'The handoff session expired');
      throw noLongerOpen();
    }
    await assertGeneration(tx, owner.accountId, owner.userId, generation);
    if (answer.kind === 'complete') {
      if (h.status !== 'active') throw badRequest('No session is open for this handoff: open one first (POST .../session)', undefined, 'session_not_open');
      return closeHandoff(tx, h, { status: 'completed', reason: 'completed' }, now);
    }
    if (answer.kind === 'decline') return closeHandoff(tx, h, { status: 'declined', reason: 'declined' }, now);
    const deferredUntil = answer.deferMinutes ? new Date(now.getTime() + answer.deferMinutes * 60_000) : null;
    return closeHandoff(tx, h, { status: 'deferred', reason: 'deferred', message: answer.message, deferredUntil }, now);
  });
}

export async function completeHandoff(db: Db, actor: Actor, handoffId: string, generation?: number) {
  const h = await answerHandoff(db, requireHandoffPerson(actor), handoffId, { kind: 'complete' }, generation);
  return { ok: true as const, taskId: h.taskId };
}

export async function declineHandoff(db: Db, actor: Actor, handoffId: string, generation?: number) {
  const h = await answerHandoff(db, requireHandoffPerson(actor), handoffId, { kind: 'decline' }, generation);
  return { ok: true as const, taskId: h.taskId };
}

export async function deferHandoff(db: Db, actor: Actor, handoffId: string, input: { message: string; deferMinutes?: number }, generation?: number) {
  const h = await answerHandoff(db, requireHandoffPerson(actor), handoffId, { kind: 'defer', ...input }, generation);
  return { ok: true as const, deferredUntil: h.deferredUntil?.toISOString() ?? null };
}

/**
 * Answers several handoffs at once: `completed` and `declined` close open ones (with the note as
 * the person's words), `pending` leaves them as they are. Ids that are not the user's, or not
 * open, are skipped; `resolved` lists the handoffs this call closed.
 */
export async function resolveHandoffs(db: Db, actor: Actor, input: ResolveInput, now = new Date()) {
  const owner = requireHandoffPerson(actor);
  return db.transaction(async (tx) => {
    await assertGeneration(tx, owner.accountId, owner.userId, input.generation);
    const resolved: Array<{ handoffId: string; outcome: 'completed' | 'declined' }> = [];
    for (const item of input.items) {
      if (item.outcome === 'pending') continue;
      const h = await ownHandoff(tx, owner, item.handoffId, true).catch((e: unknown) => {
        if (e instanceof AppError && e.status === 404) return null;
        throw e;
      });
      if (!h || !isOpen(h)) continue;
      if (h.expiresAt <= now) {
        await closeHandoff(tx, h, { status: 'expired', reason: 'expired' }, now);
        continue;
      }
      await closeHandoff(tx, h, { status: item.outcome, reason: item.outcome, message: item.note?.trim() || null }, now);
      resolved.push({ handoffId: h.id, outcome: item.outcome });
    }
    return { ok: true as const, resolved };
  });
}
