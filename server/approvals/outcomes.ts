import { and, desc, eq, gt, inArray, isNotNull, lt, ne } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { carts, taskRuns, type CartRow } from '@/db/schema';
import { asUntrustedData } from '@/server/models/untrusted';
import { UNDONE } from './delivery';
import { UNDONE_ALL_REASON } from './execution';
import { TIME_BOX_CANCEL_REASON } from './timebox';
import { shownDispatches, type ShownDispatchRow } from './versions';

/*
 * What a run is told of its task's carts (spec document 4, How a run ends: "The next run after a
 * cart resolves gets a message naming the cart, its outcome and the reason given"). A cart is
 * reported by every run that starts after it resolved until the task's next run has started:
 * carts that reached their outcome since the previous run began. The lines go into Steward's note
 * in the system message (agent/runtime/wake-note.ts); they are Steward's words, with the
 * person's reason quoted as theirs.
 */

const FINAL = ['executed', 'failed', 'cancelled', 'rejected'] as const;
const MAX_REPORTED = 10;
const clip = (s: string, n = 300) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 3)}...` : t;
};
const quoted = (s: string) => `“${clip(s)}”`;

function actionLabel({ dispatch, content }: ShownDispatchRow): string {
  const to = content.to.join(', ') || 'nobody';
  if (dispatch.type === 'email') return `email to ${to}${content.subject ? ` ${quoted(content.subject)}` : ''}`;
  if (dispatch.type === 'calendar_event') return `calendar invitation ${quoted(String(content.payload?.title ?? content.subject ?? 'event'))} to ${to}`;
  if (dispatch.type === 'message') return `${content.platform} message to ${to}`;
  if (dispatch.type === 'call') return `phone call to ${to}`;
  if (dispatch.type === 'skill_action') return `${content.description ?? 'skill action'} (MCP tool)`;
  return `${content.platform} action`;
}

function deliveryLabel(d: ShownDispatchRow['dispatch']): string {
  switch (d.deliveryState) {
    case 'provider_accepted':
      if (d.type === 'call') return 'placed: the provider is dialling (what came of the call reaches this task as a message)';
      return d.providerMessageId && d.type !== 'message' ? `sent: accepted by the mail server (Message-ID ${d.providerMessageId})` : 'sent: accepted by the provider';
    // A provider's reason is its text (a mail server's refusal, an MCP server's error): data, never instructions.
    case 'failed':
      return `not sent: ${d.failureReason ? asUntrustedData('provider', clip(d.failureReason)) : 'it failed'}`;
    case 'unknown':
      return `delivery unknown: ${d.failureReason ? asUntrustedData('provider', clip(d.failureReason)) : 'no confirmation was received'}. Do not assume it was or was not delivered, and do not send it again without asking the user`;
    case 'staged':
    case 'held':
      return 'not sent';
    default:
      return d.deliveryState === UNDONE ? 'not sent: the user undid it within its undo window' : d.deliveryState;
  }
}

/** How the cart was released or stopped, in a few words. */
function verdict(cart: CartRow, shown: ShownDispatchRow[]): string {
  const byUser = cart.resolvedByUserId !== null;
  const released = byUser ? 'was approved by the user' : cart.resolvedApprovalMode === 'time-boxed' ? 'was released when its review window ended' : 'was released at once (the user’s autonomy settings)';
  if (cart.status === 'executed') return `${released} and executed`;
  if (cart.status === 'failed') return `${released}, and could not be fully executed`;
  if (cart.status === 'rejected') return 'was rejected by the user from the approval message: nothing was sent';
  if (byUser && cart.reason !== UNDONE_ALL_REASON) return 'was cancelled by the user: nothing was sent';
  if (cart.reason === TIME_BOX_CANCEL_REASON) return 'was cancelled when its review window ended (the user’s setting): nothing was sent';
  if (cart.reason === UNDONE_ALL_REASON || (shown.length > 0 && shown.every((d) => d.dispatch.deliveryState === UNDONE))) return 'was released, then every action in it was undone by the user: nothing was sent';
  return 'was withdrawn: nothing was sent';
}

/**
 * The lines for the run `runId` of `taskId`: one per cart that reached its outcome since the
 * task's previous run started (none before the task's first run), oldest first.
 */
export async function cartOutcomeNotes(db: Db, taskId: string, runId: string): Promise<string[]> {
  const [run] = await db.select({ startedAt: taskRuns.startedAt, createdAt: taskRuns.createdAt }).from(taskRuns).where(eq(taskRuns.id, runId));
  if (!run) return [];
  const [previous] = await db
    .select({ startedAt: taskRuns.startedAt })
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, taskId), ne(taskRuns.id, runId), isNotNull(taskRuns.startedAt), lt(taskRuns.createdAt, run.createdAt)))
    .orderBy(desc(taskRuns.createdAt))
    .limit(1);
  if (!previous?.startedAt) return [];
  const rows = await db
    .select()
    .from(carts)
    .where(and(eq(carts.taskId, taskId), inArray(carts.status, [...FINAL]), gt(carts.updatedAt, previous.startedAt), ne(carts.runId, runId)))
    .orderBy(desc(carts.updatedAt))
    .limit(MAX_REPORTED);
  rows.reverse();
  const shown = await shownDispatches(
    db,
    rows.map((c) => c.id),
  );
  const lines: string[] = [];
  for (const cart of rows) {
    const actions = shown.get(cart.id) ?? [];
    // A cart that never held an action (the run staged nothing, or the person removed everything and cancelled it) still reports its cancellation.
    if (!actions.length && cart.reason === 'Nothing was staged') continue;
    const executed = cart.status === 'executed' || cart.status === 'failed';
    const details = actions.map((d) => `${actionLabel(d)}${executed ? ` (${deliveryLabel(d.dispatch)})` : ''}`);
    let line = `Your staged actions (cart ${cart.id}: ${details.join('; ') || 'no actions left'}) ${verdict(cart, actions)}.`;
    if (cart.reason && cart.reason !== UNDONE_ALL_REASON && cart.reason !== TIME_BOX_CANCEL_REASON) {
      line += cart.resolvedByUserId ? ` The user’s reason: ${quoted(cart.reason)}.` : ` Reason: ${clip(cart.reason)}`;
    }
    lines.push(line);
  }
  return lines;
}
