import { sql } from 'drizzle-orm';
import { sharedDatabase } from '@/db/client';
import { stampHandoffs } from '@/db/queries/engine-handoffs';
import type { EngineHandoffKind } from '@/db/schema';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/** How long a queued run or turn may wait for its own process to hand it over before the sweep does (STEWARD_HANDOFF_GRACE_MS). */
export const handoffGraceMs = () => Number(process.env.STEWARD_HANDOFF_GRACE_MS) || 5_000;
/** A claimed row whose sweep died is claimed again after this. */
const CLAIM_SECONDS = 60;
const BATCH = 500;

type Due = { id: string; kind: EngineHandoffKind; data: Record<string, string> };

/**
 * Outbox rows (engine_handoffs) past the grace that nobody stamped, whose run or turn is still
 * queued: claimed for this sweep (SKIP LOCKED, so two processes' sweeps never send the same row).
 * Rows whose run or turn no longer waits (stopped, cancelled, deleted) are settled without a send.
 */
async function claimDue(graceMs: number): Promise<Due[]> {
  await db().execute(sql`
    UPDATE engine_handoffs h SET sent_at = now()
    WHERE h.sent_at IS NULL AND h.created_at < now() - make_interval(secs => ${graceMs / 1000})
      AND NOT EXISTS (SELECT 1 FROM task_runs r WHERE r.id = h.id AND r.status = 'queued')
      AND NOT EXISTS (SELECT 1 FROM chat_turns t WHERE t.id = h.id AND t.status = 'queued')`);
  const { rows } = await db().execute<Due>(sql`
    WITH due AS (
      SELECT id FROM engine_handoffs
      WHERE sent_at IS NULL AND created_at < now() - make_interval(secs => ${graceMs / 1000})
        AND (claimed_until IS NULL OR claimed_until < now())
      ORDER BY created_at LIMIT ${BATCH}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE engine_handoffs h SET claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS})
    FROM due WHERE h.id = due.id
    RETURNING h.id, h.kind, h.data`);
  return rows;
}

/** Sent rows are kept a day (what was handed over when), then dropped. */
async function purge() {
  await db().execute(sql`DELETE FROM engine_handoffs WHERE id IN (SELECT id FROM engine_handoffs WHERE sent_at < now() - interval '1 day' LIMIT 5000)`);
}

/**
 * The outbox sweep (server/tasks/runs.ts, server/chats/turn-queue.ts): every minute, and when a
 * process starts (server/compose/engine-handovers.ts), task runs and chat turns queued longer than the grace whose
 * event never reached the engine are sent, each with its own id as the event id (an engine that
 * already has the event keeps one; the run's first step starts a queued run once), then stamped.
 */
export const engineHandoffSweep = inngest.createFunction(
  { id: 'engine-handoff-sweep', retries: 2, triggers: [{ cron: '* * * * *' }, events.engineHandoffsSweepDue] },
  async ({ step }) => {
    const due = await step.run('claim', () => claimDue(handoffGraceMs()));
    const runs = due.filter((d) => d.kind === 'task_run');
    const turns = due.filter((d) => d.kind === 'chat_turn');
    const sent = [
      ...runs.map((d) => events.taskRunRequested.create({ taskId: d.data.taskId!, runId: d.data.runId!, accountId: d.data.accountId! }, { id: d.id })),
      ...turns.map((d) => events.chatTurnRequested.create({ turnId: d.data.turnId!, chatId: d.data.chatId!, accountId: d.data.accountId! }, { id: d.id })),
    ];
    if (sent.length) {
      await step.sendEvent('hand-over', sent);
      await step.run('stamp', () => stampHandoffs(db(), due.map((d) => d.id)));
    }
    await step.run('purge', purge);
    return { taskRuns: runs.length, chatTurns: turns.length };
  },
);
