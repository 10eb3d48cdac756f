'use client';
import { Check, Pencil, X } from 'lucide-react';
import { useEffect, useRef, useState, useTransition } from 'react';
import { useLive } from '@/app/_lib/live';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { cn } from '@/app/_ui/cn';
import { Input } from '@/app/_ui/controls';
import { Badge } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { Countdown } from './countdown';
import { DispatchView } from './dispatch-view';
import { EditForm } from './edit-form';
import { STATUS } from './status';
import type { Cart, CartStatus } from './types';

const AWAITING: CartStatus[] = ['pending_approval', 'time_boxed'];
/** Statuses that move on by themselves: after a decision the card reads the cart until it leaves them. */
const MOVING: CartStatus[] = ['approved', 'executing', 'submitted'];
/** How the card keeps reading a moving cart: soon after the decision, then less often, for about two minutes (an undo delay holds a send back). */
const FOLLOW_WAITS_MS = [500, 1000, 1500, 2000, 3000, ...Array<number>(22).fill(5000)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The text a person can edit here: an email's subject and body, a message's body. */
const editable = (type: string) => type === 'email' || type === 'message';

type Note = { kind: 'ok' | 'error'; text: string } | null;

const tone = (s: CartStatus) => (s === 'failed' ? 'danger' : s === 'executed' ? 'ok' : s === 'time_boxed' || s === 'pending_approval' ? 'warn' : 'plain');

/**
 * One cart waiting for the person: its actions exactly as they will be sent, inline edits, approve
 * and cancel, and afterwards the outcome as the server reports it. The approval's fingerprint and
 * other particulars are under "Details". `editRequest` (a counter) opens the first editable action's
 * editor: the inbox's `e` shortcut.
 */
export function CartCard({
  initial,
  editRequest = 0,
  headingLevel = 2,
  onDecided,
  onEdited,
  className,
}: {
  initial: Cart;
  editRequest?: number;
  headingLevel?: 2 | 3;
  onDecided?: () => void;
  /** The person saved an edit: the cart is a new version (a list holding it approves with the new hash). */
  onEdited?: (cart: Cart) => void;
  className?: string;
}) {
  const [cart, setCart] = useState(initial);
  const [editing, setEditing] = useState<number | null>(null);
  const [reason, setReason] = useState('');
  const [note, setNote] = useState<Note>(null);
  const [pending, start] = useTransition();
  const statusLine = useRef<HTMLParagraphElement>(null);
  const editButtons = useRef(new Map<number, HTMLButtonElement>());
  // A fresher copy from the page (a live refresh) replaces what the card shows unless it is mid-edit.
  const [seen, setSeen] = useState(initial);
  if (seen !== initial) {
    setSeen(initial);
    if (editing === null && initial.id === cart.id) setCart(initial);
  }
  // After an edit closes, focus goes back to its Edit button once that is rendered and enabled again.
  const [refocus, setRefocus] = useState<number | null>(null);
  useEffect(() => {
    const button = refocus === null || pending ? undefined : editButtons.current.get(refocus);
    if (!button) return;
    button.focus();
    setRefocus(null);
  }, [refocus, pending, editing]);
  useEffect(() => {
    if (!editRequest) return;
    const first = cart.dispatches.find((d) => editable(d.type));
    if (first && AWAITING.includes(cart.status)) setEditing(first.index);
    // Only a new request opens the editor.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [editRequest]);
  const awaiting = AWAITING.includes(cart.status);
  const id = `cart-${cart.id}`;
  const label = `“${cart.taskTitle}”`;

  const reload = async () => {
    const { cart: fresh } = await trpc.approvals.get.query({ cartId: cart.id });
    setCart(fresh);
    return fresh;
  };
  // Another device decided or edited it: show it as it is now.
  useLive(['sent'], () => {
    if (editing === null && !pending) void reload().catch(() => undefined);
  });

  /** Reads the cart until it leaves `moving` (or a while has passed), saying each new status. */
  const follow = async (moving: CartStatus[]) => {
    let last: CartStatus | null = null;
    for (const wait of [0, ...FOLLOW_WAITS_MS]) {
      await sleep(wait);
      const fresh = await reload();
      if (fresh.status !== last) setNote({ kind: fresh.status === 'failed' ? 'error' : 'ok', text: `${label} is ${STATUS[fresh.status]}.` });
      last = fresh.status;
      if (!moving.includes(fresh.status)) return;
    }
  };

  /** Runs a decision; its outcome goes to the status line, which takes focus unless the page acted on its own (`focus` false). */
  const act = (fn: () => Promise<void>, focus = true) =>
    start(async () => {
      try {
        await fn();
      } catch (e) {
        const { message, code } = describeError(e);
        // The cart moved or changed under the person: show it as it is now, with why.
        if (code === 'cart_content_changed' || code === 'cart_already_resolved' || code === 'cart_not_editable' || code === 'cart_task_closed') {
          await reload().catch(() => undefined);
          setEditing(null);
        }
        setNote({ kind: 'error', text: code === 'cart_content_changed' ? 'The actions changed since you read them. They are shown again as they are now: check them, then approve.' : message });
      }
      if (focus) statusLine.current?.focus();
    });

  const approve = () =>
    act(async () => {
      await trpc.approvals.approve.mutate({ cartId: cart.id, contentHash: cart.contentHash });
      setNote({ kind: 'ok', text: `Approved ${label}.` });
      onDecided?.();
      await follow(MOVING);
    });

  const cancel = () =>
    act(async () => {
      await trpc.approvals.cancel.mutate({ cartId: cart.id, ...(reason.trim() ? { reason: reason.trim() } : {}) });
      onDecided?.();
      await follow(MOVING);
    });

  const save = (index: number, edit: { subject?: string; body?: string }) =>
    start(async () => {
      try {
        const { cart: fresh } = await trpc.approvals.edit.mutate({ cartId: cart.id, index, ...edit });
        setCart(fresh);
        onEdited?.(fresh);
        setEditing(null);
        setNote({ kind: 'ok', text: 'Saved your edit as a new version. Approving now sends it as you wrote it.' });
        setRefocus(index);
      } catch (e) {
        const { message, code } = describeError(e);
        if (code === 'cart_not_editable') {
          await reload().catch(() => undefined);
          setEditing(null);
        }
        setNote({ kind: 'error', text: message });
      }
    });

  const discard = (index: number) => {
    setEditing(null);
    setRefocus(index);
  };
  const H = headingLevel === 2 ? 'h2' : 'h3';
  const count = cart.dispatches.length;

  return (
    <article aria-labelledby={`${id}-title`} className={cn('rounded-lg border border-border bg-raised p-4 sm:p-5', className)} data-cart-id={cart.id} id={id}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <H id={`${id}-title`} className="min-w-0 text-lg font-semibold [overflow-wrap:anywhere]">
          {cart.taskTitle}
        </H>
        <Badge tone={tone(cart.status)}>
          <span data-testid="cart-status">{STATUS[cart.status]}</span>
        </Badge>
      </div>
      <p className="text-sm text-muted">
        {cart.assistantName ?? 'Your assistant'} wants to send {count === 1 ? 'this' : `these ${count} things`} · <Time value={cart.createdAt} />
      </p>
      {cart.status === 'time_boxed' && cart.timeBoxedExpiresAt && <Countdown expiresAt={cart.timeBoxedExpiresAt} expiry={cart.timeBoxedExpiry} label={label} onElapsed={() => act(() => follow(['time_boxed', ...MOVING]), false)} />}
      {count === 0 && <p className="mt-2">Every action was removed: cancel to close it.</p>}
      {cart.dispatches.map((d) => (
        <section key={d.index} className="mt-3 border-t border-border pt-3 first-of-type:border-t-0 first-of-type:pt-0" aria-labelledby={`${id}-d${d.index}`}>
          <DispatchView dispatch={d} headingId={`${id}-d${d.index}`} showDelivery={!awaiting} headingLevel={headingLevel === 2 ? 3 : 4} />
          {awaiting && editable(d.type) && editing !== d.index && (
            <Button
              ref={(el) => {
                if (el) editButtons.current.set(d.index, el);
                else editButtons.current.delete(d.index);
              }}
              variant="ghost"
              size="sm"
              className="mt-1"
              disabled={pending || editing !== null}
              onClick={() => setEditing(d.index)}
            >
              <Pencil aria-hidden="true" />
              Edit<span className="sr-only"> the {d.type === 'email' ? 'email' : 'message'}{d.to.length ? ` to ${d.to.join(', ')}` : ''} of {label}</span>
            </Button>
          )}
          {awaiting && editing === d.index && <EditForm dispatch={d} idPrefix={`${id}-d${d.index}-edit`} pending={pending} onSave={(edit) => save(d.index, edit)} onDiscard={() => discard(d.index)} />}
        </section>
      ))}
      {awaiting ? (
        <div className="mt-4 flex flex-col gap-3 border-t border-border pt-4">
          <div className="flex flex-wrap gap-2">
            <Button disabled={pending || editing !== null} onClick={approve} className="flex-1 justify-center sm:flex-none">
              <Check aria-hidden="true" />
              Approve and send<span className="sr-only"> {label}</span>
            </Button>
            <Button variant="danger-ghost" disabled={pending || editing !== null} onClick={cancel} className="flex-1 justify-center sm:flex-none">
              <X aria-hidden="true" />
              Cancel<span className="sr-only"> {label}</span>: send nothing
            </Button>
          </div>
          <details className="text-sm">
            <summary className="inline-flex min-h-11 cursor-pointer items-center text-muted sm:min-h-0">Tell the assistant why you cancel</summary>
            <div className="mt-2">
              <label htmlFor={`${id}-reason`} className="mb-1 block text-sm font-medium">
                Reason for cancelling (optional, told to the assistant)
              </label>
              <Input id={`${id}-reason`} value={reason} maxLength={2000} onChange={(e) => setReason(e.target.value)} />
            </div>
          </details>
        </div>
      ) : (
        <div className="mt-4 flex flex-wrap gap-2">
          <Button variant="secondary" size="sm" disabled={pending} onClick={() => act(() => follow([]))}>
            Refresh the status<span className="sr-only"> of {label}</span>
          </Button>
        </div>
      )}
      <details className="mt-3 text-sm text-muted">
        <summary className="inline-flex min-h-11 cursor-pointer items-center sm:min-h-0">Details</summary>
        <dl className="mt-1 grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-0.5">
          <dt>Staged</dt>
          <dd>
            <Time value={cart.createdAt} />
          </dd>
          <dt>Version approved</dt>
          <dd className="font-mono text-xs [overflow-wrap:anywhere]" data-testid="content-hash">
            {cart.contentHash}
          </dd>
        </dl>
      </details>
      <p ref={statusLine} tabIndex={-1} role="status" aria-live="polite" className={cn('mt-2 min-h-5 text-sm', note?.kind === 'error' ? 'text-danger' : 'text-ok')}>
        {note?.text ?? ''}
      </p>
    </article>
  );
}
