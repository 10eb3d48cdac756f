'use client';
import { useRef, useState, useTransition } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import s from '@/app/_ui/hosted.module.css';

type Outcome = { kind: 'ok' | 'error'; text: string } | null;

/**
 * The only thing on the reject page that rejects: a same-origin POST with the link's token.
 * Opening the link (what a mail scanner does) never gets here.
 */
export function RejectButton({ token, label }: { token: string; label: string }) {
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [pending, start] = useTransition();
  const line = useRef<HTMLParagraphElement>(null);
  const reject = () =>
    start(async () => {
      try {
        await trpc.approvals.reject.mutate({ token });
        setOutcome({ kind: 'ok', text: `Rejected: nothing of ${label} will be sent, and the assistant is told.` });
      } catch (e) {
        setOutcome({ kind: 'error', text: describeError(e).message });
      }
      line.current?.focus();
    });
  return (
    <>
      {outcome?.kind !== 'ok' && (
        <button className={s.danger} type="button" disabled={pending} onClick={reject}>
          Reject<span className="sr-only"> {label}</span>
        </button>
      )}
      <p ref={line} tabIndex={-1} role="status" aria-live="polite" className={`${s.status} ${outcome?.kind === 'error' ? s.error : outcome ? s.ok : ''}`}>
        {outcome?.text ?? ''}
      </p>
    </>
  );
}
