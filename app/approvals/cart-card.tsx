'use client';
import { useEffect, useRef, useState, useTransition } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import css from './approvals.module.css';
import { Countdown } from './countdown';
import { DispatchView } from './dispatch-view';
import { EditForm } from './edit-form';
import { STATUS } from './status';
import type { Cart, CartStatus } from './types';

const AWAITING: CartStatus[] = ['pending_approval', 'time_boxed'];
/** Statuses that move on by themselves: after a decision the page reads the cart until it leaves them. */
const MOVING: CartStatus[] = ['approved', 'executing', 'submitted'];
/** How the page keeps reading a moving cart: soon after the decision, then less often, for about two minutes (an undo delay holds a send back). */
const FOLLOW_WAITS_MS = [500, 1000, 1500, 2000, 3000, ...Array<number>(22).fill(5000)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The text a person can edit here: an email's subject and body, a message's body. */
const editable = (type: string) => type === 'email' || type === 'message';

type Note = { kind: 'ok' | 'error'; text: string } | null;

/**
 * One cart waiting for the person: its actions exactly as they will be sent, the content
 * fingerprint an approval covers, inline edits, approve and cancel, and afterwards the outcome
 * as the server reports it.
 */
export function CartCard({ initial }: { initial: Cart }) {
  const [cart, setCart] = useState(initial);
  const [editing, setEditing] = useState<number | null>(null);
  const [reason, setReason] = useState('');
  const [note, setNote] = useState<Note>(null);
  const [pending, start] = useTransition();
  const statusLine = useRef<HTMLParagraphElement>(null);
  const editButtons = useRef(new Map<number, HTMLButtonElement>());
  // After an edit closes, focus goes back to its Edit button once that is rendered and enabled again.
  const [refocus, setRefocus] = useState<number | null>(null);
  useEffect(() => {
    const button = refocus === null || pending ? undefined : editButtons.current.get(refocus);
    if (!button) return;
    button.focus();
    setRefocus(null);
  }, [refocus, pending, editing]);
  const awaiting = AWAITING.includes(cart.status);
  const id = `cart-${cart.id}`;
  const label = `“${cart.taskTitle}”`;

  const reload = async () => {
    const { cart: fresh } = await trpc.approvals.get.query({ cartId: cart.id });
    setCart(fresh);
    return fresh;
  };

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
      await follow(MOVING);
    });

  const cancel = () =>
    act(async () => {
      await trpc.approvals.cancel.mutate({ cartId: cart.id, ...(reason.trim() ? { reason: reason.trim() } : {}) });
      await follow(MOVING);
    });

  const save = (index: number, edit: { subject?: string; body?: string }) =>
    start(async () => {
      try {
        const { cart: fresh } = await trpc.approvals.edit.mutate({ cartId: cart.id, index, ...edit });
        setCart(fresh);
        setEditing(null);
        setNote({ kind: 'ok', text: `Saved your edit as a new version. The content fingerprint is now ${fresh.contentHash.slice(0, 12)}…` });
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

  return (
    <article aria-labelledby={`${id}-title`} className={css.cart} data-cart-id={cart.id}>
      <h2 id={`${id}-title`}>{cart.taskTitle}</h2>
      <p>
        {cart.assistantName ?? 'Your assistant'} staged {cart.dispatches.length === 1 ? 'one action' : `${cart.dispatches.length} actions`} on {new Date(cart.createdAt).toUTCString()}. Status:{' '}
        <strong className={css.badge} data-testid="cart-status">
          {STATUS[cart.status]}
        </strong>
      </p>
      {cart.status === 'time_boxed' && cart.timeBoxedExpiresAt && <Countdown expiresAt={cart.timeBoxedExpiresAt} expiry={cart.timeBoxedExpiry} label={label} onElapsed={() => act(() => follow(['time_boxed', ...MOVING]), false)} />}
      <p>
        Content fingerprint (what an approval covers):{' '}
        <span className={css.hash} data-testid="content-hash">
          {cart.contentHash}
        </span>
      </p>
      {cart.dispatches.length === 0 && <p>Every action was removed: cancel the cart to close it.</p>}
      {cart.dispatches.map((d) => (
        <section key={d.index} className={css.dispatch} aria-labelledby={`${id}-d${d.index}`}>
          <DispatchView dispatch={d} headingId={`${id}-d${d.index}`} showDelivery={!awaiting} />
          {awaiting && editable(d.type) && editing !== d.index && (
            <button
              ref={(el) => {
                if (el) editButtons.current.set(d.index, el);
                else editButtons.current.delete(d.index);
              }}
              className={s.secondary}
              type="button"
              disabled={pending || editing !== null}
              onClick={() => setEditing(d.index)}
            >
              Edit<span className="sr-only"> {d.type === 'email' ? 'email' : 'message'} {d.index + 1} of {label}</span>
            </button>
          )}
          {awaiting && editing === d.index && <EditForm dispatch={d} idPrefix={`${id}-d${d.index}-edit`} pending={pending} onSave={(edit) => save(d.index, edit)} onDiscard={() => discard(d.index)} />}
        </section>
      ))}
      {awaiting ? (
        <div className={css.actions}>
          <button className={s.button} type="button" disabled={pending || editing !== null} onClick={approve}>
            Approve and send<span className="sr-only"> {label}</span>
          </button>
          <Field id={`${id}-reason`} label="Reason for cancelling (optional, told to the assistant)">
            <input id={`${id}-reason`} value={reason} maxLength={2000} onChange={(e) => setReason(e.target.value)} />
          </Field>
          <button className={s.danger} type="button" disabled={pending || editing !== null} onClick={cancel}>
            Cancel<span className="sr-only"> {label}</span>: send nothing
          </button>
        </div>
      ) : (
        <div className={css.actions}>
          <button className={s.secondary} type="button" disabled={pending} onClick={() => act(() => follow([]))}>
            Refresh the status<span className="sr-only"> of {label}</span>
          </button>
        </div>
      )}
      <p ref={statusLine} tabIndex={-1} role="status" aria-live="polite" className={`${s.status} ${note?.kind === 'error' ? s.error : note ? s.ok : ''}`}>
        {note?.text ?? ''}
      </p>
    </article>
  );
}
