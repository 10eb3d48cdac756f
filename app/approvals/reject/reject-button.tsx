'use client';
import { useRef, useState, useTransition } from 'react';
import { Button } from '@/app/_ui/button';
import { cn } from '@/app/_ui/cn';
import { rejectWithLink } from './actions';

type Outcome = { kind: 'ok' | 'error'; text: string } | null;

/**
 * The only thing on the reject page that rejects: a same-origin POST with the link's token (the
 * page's Server Action, actions.ts). Opening the link (what a mail scanner does) never gets here.
 */
export function RejectButton({ token, label }: { token: string; label: string }) {
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [pending, start] = useTransition();
  const line = useRef<HTMLParagraphElement>(null);
  const reject = () =>
    start(async () => {
      try {
        const done = await rejectWithLink(token);
        setOutcome(done.ok ? { kind: 'ok', text: `Rejected: nothing of ${label} will be sent, and the assistant is told.` } : { kind: 'error', text: done.message });
      } catch {
        setOutcome({ kind: 'error', text: 'The page could not reach Steward; nothing was rejected. Try again in a moment.' });
      }
      line.current?.focus();
    });
  return (
    <>
      {outcome?.kind !== 'ok' && (
        <Button variant="danger" disabled={pending} onClick={reject}>
          Reject<span className="sr-only"> {label}</span>
        </Button>
      )}
      <p ref={line} tabIndex={-1} role="status" aria-live="polite" className={cn('my-2 min-h-5', outcome?.kind === 'error' ? 'text-danger' : 'text-ok')}>
        {outcome?.text ?? ''}
      </p>
    </>
  );
}
