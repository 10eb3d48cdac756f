'use client';
import { Time } from '@/app/_ui/time';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { SentCart as Cart, Snapshot } from '@/app/_lib/types';
import { usePolling } from '@/app/_lib/use-polling';
import { Badge } from '@/app/_ui/states';
import { useNotify } from '@/app/_ui/toast';
import { STATUS } from '@/app/approvals/status';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';

const DELIVERY: Record<string, string> = { staged: 'not sent yet', held: 'waiting out its undo window', provider_accepted: 'sent', unknown: 'delivery unknown', failed: 'failed', undone: 'undone: not sent' };

/** Seconds left in an undo window, ticking; null once it closed. */
function useSecondsLeft(until: string | null) {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    if (!until) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [until]);
  if (!until || now === null) return null;
  const left = Math.ceil((Date.parse(until) - now) / 1000);
  return left > 0 ? left : null;
}

function Action({ cart, snap, onUndone }: { cart: Cart; snap: Snapshot; onUndone: () => void }) {
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const left = useSecondsLeft(snap.canUndo ? snap.undoableUntil : null);
  const d = cart.dispatches.find((x) => x.index === snap.dispatchIndex);
  const what = d?.type === 'email' ? `Email to ${d.to.join(', ')}${d.subject ? `: “${d.subject}”` : ''}` : `${snap.dispatchType.replace('_', ' ')} ${snap.dispatchIndex + 1}`;
  return (
    <li>
      <p>
        {what} · <Badge tone={snap.deliveryState === 'failed' ? 'danger' : snap.deliveryState === 'undone' ? 'plain' : snap.deliveryState === 'held' ? 'warn' : 'ok'}>{DELIVERY[snap.deliveryState] ?? snap.deliveryState}</Badge>
        {snap.executedAt ? <> · <Time value={snap.executedAt} /></> : ''}
        {snap.failureReason ? ` · ${snap.failureReason}` : ''}
      </p>
      {snap.canUndo && left !== null && (
        <button
          className={s.danger}
          type="button"
          disabled={pending}
          onClick={async () => {
            setPending(true);
            try {
              await trpc.sent.undo.mutate({ cartId: cart.id, index: snap.dispatchIndex });
              notify('ok', `Undone: ${what} was not sent.`);
              onUndone();
            } catch (e) {
              notify('error', describeError(e).message);
            } finally {
              setPending(false);
            }
          }}
        >
          Undo<span className="sr-only"> {what}</span> ({left} s left)
        </button>
      )}
    </li>
  );
}

/** One released cart and its actions' snapshots, read again every few seconds while one is still in its undo window. */
export function SentCart({ cart, initial }: { cart: Cart; initial: Snapshot[] }) {
  const [snaps, setSnaps] = useState(initial);
  const [status, setStatus] = useState(cart.status);
  const read = async () => {
    const [fresh, c] = await Promise.all([trpc.sent.snapshots.query({ cartId: cart.id }), trpc.approvals.get.query({ cartId: cart.id })]);
    setSnaps(fresh.snapshots);
    setStatus(c.cart.status);
  };
  const moving = snaps.some((x) => x.deliveryState === 'held') || status === 'approved' || status === 'executing';
  usePolling(async () => {
    if (moving) await read();
  }, 2_000);
  return (
    <>
      <div className={ui.itemHead}>
        <h2 className={ui.itemTitle}>
          <Link href={`/tasks/${cart.taskId}`}>{cart.taskTitle}</Link>
        </h2>
        <Badge tone={status === 'failed' ? 'danger' : status === 'executed' ? 'ok' : 'warn'}>{STATUS[status]}</Badge>
      </div>
      <p className={ui.meta}>
        {cart.assistantName ?? 'Your assistant'} · <Time value={cart.updatedAt} />
      </p>
      {snaps.length ? (
        <ul aria-label={`Actions of “${cart.taskTitle}”`}>
          {snaps.map((x) => (
            <Action key={x.dispatchIndex} cart={cart} snap={x} onUndone={() => void read()} />
          ))}
        </ul>
      ) : (
        <p className={ui.muted}>Released; nothing has run yet.</p>
      )}
    </>
  );
}
