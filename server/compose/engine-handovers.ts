import { sharedDatabase } from '@/db/client';
import { stampHandoffs } from '@/db/queries/engine-handoffs';
import { transactionOutcome } from '@/db/queries/transaction-outcome';
import { registerCartSignals, type CartSignal } from '@/server/approvals/signals';
import { registerAuditSink } from '@/server/audit/record';
import { logger } from '@/server/logger';
import { registerRunDispatcher, runEventData, type QueuedRun } from '@/server/tasks/runs';
import { emitWebhookEvent, registerWebhookSender } from '@/server/webhooks/emit';
import { engine } from './engine';

/*
 * The engine's handovers that must follow a commit: the tasks area records queued runs, and they
 * start by the task-run event (inngest/functions/task-run.ts) once the transaction that queued the
 * run has committed. The approvals area's carts are executed and timed the same way: their signals
 * become the cart events (inngest/functions/cart-*.ts), which carry the releasing transaction's id
 * and act only once it has committed (a cart that waits for approval is mailed to its owner the
 * same way). Webhook deliveries and audit events follow the same rule. Only a process that serves
 * the API composes these (composeRuntime); tests that do not run the engine leave them unset.
 */

async function sendCartSignal(signal: CartSignal): Promise<void> {
  const { inngest, events } = await engine();
  // One id per releasing transaction: an Inngest server drops a repeated send of the same release.
  if (signal.kind === 'execute') {
    const data = { cartId: signal.cartId, accountId: signal.accountId, transactionId: signal.transactionId };
    await inngest.send(events.cartExecuteRequested.create(data, { id: `cart-execute-${signal.cartId}-${signal.transactionId}` }));
  } else if (signal.kind === 'time_box') {
    const data = { cartId: signal.cartId, accountId: signal.accountId, expiresAt: signal.expiresAt, transactionId: signal.transactionId };
    await inngest.send(events.cartTimeBoxStarted.create(data, { id: `cart-time-box-${signal.cartId}-${signal.transactionId}` }));
  } else if (signal.kind === 'pending_approval') {
    const data = { cartId: signal.cartId, accountId: signal.accountId, transactionId: signal.transactionId };
    await inngest.send(events.cartPendingApproval.create(data, { id: `cart-pending-${signal.cartId}-${signal.transactionId}` }));
  } else {
    await inngest.send(events.cartDecided.create({ cartId: signal.cartId, accountId: signal.accountId }));
  }
}

/**
 * Runs queued by one transaction, started together once it has committed: one wait on its outcome
 * and one send for all of them (a minute's workflow firings queue hundreds in one transaction).
 */
const waiting = new Map<string, QueuedRun[]>();

async function dispatchTransaction(transactionId: string): Promise<void> {
  const outcome = await transactionOutcome(sharedDatabase().db, transactionId).catch(() => 'unknown' as const);
  // The transaction has ended: nothing more can join its list.
  const runs = waiting.get(transactionId) ?? [];
  waiting.delete(transactionId);
  if (outcome !== 'committed') {
    if (outcome === 'unknown') logger.warn({ runIds: runs.map((r) => r.runId) }, 'task runs not started: their transaction did not end in time');
    return;
  }
  const { inngest, events } = await engine();
  for (let i = 0; i < runs.length; i += 500) {
    const batch = runs.slice(i, i + 500);
    const ids = batch.map((r) => r.runId);
    // The run's id is the event's: an engine that already has the event (the sweep sent it too) keeps one.
    await inngest
      .send(batch.map((run) => events.taskRunRequested.create(runEventData({ id: run.runId, taskId: run.taskId, accountId: run.accountId }), { id: run.runId })))
      .then(() => stampHandoffs(sharedDatabase().db, ids))
      // Never fails the request that queued the run: a run that cannot be sent stays queued, and
      // its unstamped outbox row is sent by the sweep (inngest/functions/engine-handoff-sweep.ts).
      .catch((err: unknown) => logger.error({ err, runIds: ids }, 'task runs could not be handed to the engine; the sweep will send them'));
  }
}

export function wireEngineHandovers(): void {
  registerRunDispatcher((run) => {
    const list = waiting.get(run.transactionId);
    if (list) {
      list.push(run);
      return;
    }
    waiting.set(run.transactionId, [run]);
    dispatchTransaction(run.transactionId).catch((err: unknown) => logger.error({ err, transactionId: run.transactionId }, 'task runs could not be started'));
  });

  // Awaited inside the releasing transaction: a failed send fails it (approve answers 500 and changes nothing).
  registerCartSignals(sendCartSignal);

  // Webhook deliveries recorded in a transaction go to the engine once it has committed (never after
  // a rollback). A lost handover is not lost work: the sweep (inngest/functions/webhook-deliver.ts)
  // finds deliveries nobody took up.
  registerWebhookSender(({ deliveryIds, transactionId }) => {
    void (async () => {
      const outcome = await transactionOutcome(sharedDatabase().db, transactionId);
      if (outcome !== 'committed') return;
      const { inngest, events } = await engine();
      await inngest.send(deliveryIds.map((deliveryId) => events.webhookDeliveryRequested.create({ deliveryId }, { id: `webhook-${deliveryId}` })));
    })().catch((err: unknown) => logger.warn({ err, deliveryIds }, 'webhooks: handover failed; the sweep will deliver'));
  });

  // Audit events reach the webhooks (`audit.event`) in the transaction that records them; where the
  // runtime is not composed (the admin CLI) the audit sweep emits them (inngest/functions/audit-sweep.ts).
  registerAuditSink((tx, event) => emitWebhookEvent(tx, event.accountId, 'audit.event', event));
}

/**
 * A process that starts may inherit handovers its predecessor lost (killed between a commit and the
 * send): it asks the sweep to send them a few times while it comes up, instead of leaving them to
 * the sweep's next minute. An ask that comes before the engine or its functions are ready is lost
 * harmlessly (the next one lands); a process without an engine (tests, the admin CLI) asks nobody.
 */
export function askForSweepsWhileStarting(): void {
  const graceMs = Number(process.env.STEWARD_HANDOFF_GRACE_MS) || 5_000;
  for (const after of [graceMs + 1_000, 12_000, 25_000, 45_000]) setTimeout(() => void askForSweep(), after).unref();
}

async function askForSweep(): Promise<void> {
  try {
    const { inngest, events } = await engine();
    await inngest.send(events.engineHandoffsSweepDue.create({}));
  } catch (err) {
    logger.debug({ err }, 'engine handoffs: the engine is not there yet to ask for a sweep');
  }
}

