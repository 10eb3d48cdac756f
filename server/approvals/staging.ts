import { and, eq, sql } from 'drizzle-orm';
import { atOnce } from '@/db/at-once';
import type { Tx } from '@/db/client';
import { assistants, cartDispatches, carts, taskRuns, tasks, users, type CartRow, type DispatchContent, type TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { notFound } from '@/server/http/errors';
import { parseOrThrow } from '@/server/http/validate';
import { resolveTaskDispatchMode, type ActionType, type DispatchMode } from '@/server/policy/autonomy-resolve';
import { compareStrictness, FALLBACK_WINDOW_MIN } from '@/server/policy/autonomy-rules';
import { cartContentHash } from './cart-hash';
import { decorateStaged } from './decorate';
import { taintHolds } from './hold';
import { applyCartChange, planCart } from './cart-transitions';
import { StagedDispatchInput, type StagedDispatch } from './contracts';
import { addVersion, refreshCartHash, shownDispatches } from './versions';

/*
 * Staging for the agent runtime (spec document 4, Carts and dispatch): the staging tools add
 * dispatches to the run's one `open` cart; when the run ends the cart is submitted and its mode
 * resolved per dispatch, the strictest applying to the cart. These functions take the caller's
 * transaction: a tool step writes its dispatch and its activity together, and a retried step
 * that rolled back stages nothing.
 */

export type StagedResult = { cartId: string; index: number; versionId: string; contentHash: string };

/** Who a dispatch is from, as shown and sent: the user's address for email as the user, else the assistant's (null where a channel decides). */
async function senderOf(tx: Tx, actor: UserActor, task: TaskRow, input: { type: string; actionType: string }): Promise<string | null> {
  if (input.actionType === 'email_as_user') return actor.user.email;
  if (input.type !== 'email' && input.type !== 'calendar_event') return null;
  const [assistant] = await tx.select({ email: assistants.email }).from(assistants).where(eq(assistants.id, task.assistantId));
  return assistant?.email ?? null;
}

/** The run's open cart, created on first use; locked for the rest of the transaction. */
async function openCartOf(tx: Tx, task: TaskRow, runId: string): Promise<CartRow> {
  await tx
    .insert(carts)
    .values({ accountId: task.accountId, taskId: task.id, runId, userId: task.userId, assistantId: task.assistantId, contentHash: cartContentHash([]) })
    .onConflictDoNothing({ target: carts.runId, where: sql`${carts.status} = 'open'` });
  const [cart] = await tx
    .select()
    .from(carts)
    .where(and(eq(carts.runId, runId), eq(carts.status, 'open')))
    .for('update');
  // Created above or by a concurrent staging of the same run (which holds it until it commits).
  if (!cart) throw new Error(`the open cart of run ${runId} vanished while staging`);
  return cart;
}

/**
 * Adds one dispatch to the run's open cart (creating the cart), as the task's owner: another
 * user's task, or a run of another task, is 404. Returns where it went and the cart's new hash.
 */
export async function stageDispatch(tx: Tx, actor: UserActor, task: TaskRow, runId: string, input: StagedDispatch): Promise<StagedResult> {
  if (task.accountId !== actor.accountId || task.userId !== actor.user.id) throw notFound('Task');
  // The signature and branding the owner's settings ask for are part of what is shown and sent (decorate.ts).
  const staged = parseOrThrow(StagedDispatchInput, await decorateStaged(tx, actor.user, task, parseOrThrow(StagedDispatchInput, input, 'input')), 'input');
  const [run] = await tx.select({ id: taskRuns.id }).from(taskRuns).where(and(eq(taskRuns.id, runId), eq(taskRuns.taskId, task.id)));
  if (!run) throw notFound('Run');
  const cart = await openCartOf(tx, task, runId);
  const content: DispatchContent = {
    type: staged.type,
    platform: staged.platform,
    from: await senderOf(tx, actor, task, staged),
    to: staged.to,
    cc: staged.cc,
    bcc: staged.bcc,
    subject: staged.subject,
    body: staged.body,
    description: staged.description,
    payload: staged.payload,
    files: staged.files,
    validUntil: staged.validUntil,
    evergreen: staged.evergreen,
  };
  const [dispatch] = await tx
    .insert(cartDispatches)
    .values({
      cartId: cart.id,
      accountId: cart.accountId,
      // The cart row is locked: nobody else numbers a dispatch of this cart meanwhile. Removed ones keep their index.
      index: sql`(SELECT coalesce(max(d.index) + 1, 0) FROM cart_dispatches d WHERE d.cart_id = ${cart.id})`,
      type: staged.type,
      platform: staged.platform,
      actionType: staged.actionType,
    })
    .returning();
  const withVersion = await addVersion(tx, dispatch, content, null);
  const { cart: refreshed } = await refreshCartHash(tx, cart.id);
  return { cartId: cart.id, index: withVersion.index, versionId: withVersion.currentVersionId!, contentHash: refreshed.contentHash };
}

/** What the caller of submitCart must do next; execution and timers are the runtime's. */
export type SubmitOutcome =
  /** Released at once (auto): execute the cart now. */
  | { next: 'execute'; cartId: string; status: 'approved'; undoDelaySec: number }
  /** Time-boxed: start the timer; at expiresAt the cart executes or is cancelled, as `expiry` says. */
  | { next: 'start_timer'; cartId: string; status: 'time_boxed'; expiresAt: Date; expiry: 'execute' | 'cancel'; undoDelaySec: number }
  /** Manual: wait for the person's approval. */
  | { next: 'wait'; cartId: string; status: 'pending_approval' }
  /** Nothing to do: the cart was empty (cancelled), or had already been submitted and moved on. */
  | { next: 'none'; cartId: string; status: CartRow['status'] };

const MS_PER_MIN = 60_000;

type CartMode = Omit<DispatchMode, 'source'>;

/** The cart's value: the strictest dispatch decides; a `cancel` expiry among the time-boxed ones wins; the longest undo delay applies. */
export function strictestOf(modes: CartMode[]): CartMode {
  const winner = modes.reduce((best, m) => (compareStrictness(m, best) > 0 ? m : best));
  const boxed = modes.filter((m) => m.mode === 'time-boxed');
  return {
    mode: winner.mode,
    timeBoxedWindowMin: winner.timeBoxedWindowMin,
    timeBoxedExpiry: winner.mode === 'time-boxed' && boxed.some((m) => m.timeBoxedExpiry === 'cancel') ? 'cancel' : winner.timeBoxedExpiry,
    undoDelaySec: Math.max(...modes.map((m) => m.undoDelaySec)),
  };
}

/** What a cart in `status` asks of the runtime (a submitted cart that moved on answers the same again when the step is retried). */
function outcomeOf(cart: CartRow): SubmitOutcome {
  if (cart.status === 'approved') return { next: 'execute', cartId: cart.id, status: 'approved', undoDelaySec: cart.undoDelaySec ?? 0 };
  if (cart.status === 'time_boxed' && cart.timeBoxedExpiresAt && cart.timeBoxedExpiry) {
    return { next: 'start_timer', cartId: cart.id, status: 'time_boxed', expiresAt: cart.timeBoxedExpiresAt, expiry: cart.timeBoxedExpiry, undoDelaySec: cart.undoDelaySec ?? 0 };
  }
  if (cart.status === 'pending_approval') return { next: 'wait', cartId: cart.id, status: 'pending_approval' };
  return { next: 'none', cartId: cart.id, status: cart.status };
}

/**
 * The run ended: open → submitted → the mode resolved per dispatch (the task's own approval mode
 * standing in for the user's cell, recipient exceptions, team, organization, account, platform
 * default; locks win), the strictest applying to the cart: auto → approved, time-boxed →
 * time_boxed until now + window, manual → pending_approval. In a run that read untrusted content
 * a dispatch to anyone but the owner is `manual` whatever the settings say (hold.ts). Idempotent:
 * a cart already past `open` is left as it is and answers what it asks for now.
 */
export async function submitCart(tx: Tx, cartId: string, now = new Date()): Promise<SubmitOutcome> {
  const [locked] = await tx.select().from(carts).where(eq(carts.id, cartId)).for('update');
  if (!locked) throw notFound('Cart');
  if (locked.status !== 'open') return outcomeOf(locked);
  const shown = (await shownDispatches(tx, [cartId])).get(cartId) ?? [];
  if (!shown.length) {
    const row = await applyCartChange(tx, locked, planCart(locked, 'discard', 'cancelled', { reason: 'Nothing was staged', now }), 'discard');
    return { next: 'none', cartId, status: row.status };
  }
  const submitted = await applyCartChange(tx, locked, planCart(locked, 'submit', 'submitted', { now }), 'submit');
  const [[owner], [task]] = await atOnce(tx, [
    () => tx.select({ id: users.id, accountId: users.accountId, organizationId: users.organizationId }).from(users).where(eq(users.id, locked.userId)),
    () => tx.select({ approvalMode: tasks.approvalMode }).from(tasks).where(eq(tasks.id, locked.taskId)),
  ]);
  const holds = await taintHolds(tx, locked, shown);
  const modes: CartMode[] = [];
  for (const { dispatch, content } of shown) {
    const recipients = [...content.to, ...content.cc, ...content.bcc];
    // actionType was checked against the matrix's action types when it was staged.
    const mode = await resolveTaskDispatchMode(tx, owner, dispatch.actionType as ActionType, recipients, task?.approvalMode ?? null);
    // The run read untrusted content and this goes to someone else: a person decides (hold.ts).
    const held = holds.get(dispatch.id);
    if (held) await tx.update(cartDispatches).set({ heldBecause: held }).where(eq(cartDispatches.id, dispatch.id));
    modes.push(held ? { ...mode, mode: 'manual', timeBoxedWindowMin: null } : mode);
    // Attaching the user's files shares them: the `files` cell applies too, and the stricter wins (issue 46).
    if (content.files?.length) modes.push(await resolveTaskDispatchMode(tx, owner, 'files', recipients, task?.approvalMode ?? null));
  }
  const value = strictestOf(modes);
  const to = value.mode === 'auto' ? 'approved' : value.mode === 'time-boxed' ? 'time_boxed' : 'pending_approval';
  const boxed = value.mode === 'time-boxed';
  const row = await applyCartChange(
    tx,
    submitted,
    {
      ...planCart(submitted, 'resolve', to, { now }),
      resolvedApprovalMode: value.mode,
      timeBoxedExpiresAt: boxed ? new Date(now.getTime() + (value.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN) * MS_PER_MIN) : null,
      timeBoxedExpiry: boxed ? value.timeBoxedExpiry : null,
      undoDelaySec: value.undoDelaySec,
    },
    'resolve',
  );
  return outcomeOf(row);
}
