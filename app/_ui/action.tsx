'use client';
import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { describeError } from '@/app/_lib/trpc-client';
import s from './hosted.module.css';

type State = { kind: 'idle' } | { kind: 'ok'; text: string } | { kind: 'error'; text: string; code: string | null };

/**
 * Runs one mutation from a form or button: shows its outcome in a live region (so screen
 * readers hear it) and refreshes the server-rendered page on success.
 */
export function useAction() {
  const router = useRouter();
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [pending, start] = useTransition();
  const run = <T,>(fn: () => Promise<T>, ok: string | ((r: T) => string), after?: (r: T) => void) =>
    start(async () => {
      try {
        const r = await fn();
        setState({ kind: 'ok', text: typeof ok === 'function' ? ok(r) : ok });
        after?.(r);
        router.refresh();
      } catch (e) {
        const { message, code } = describeError(e);
        setState({ kind: 'error', text: message, code });
      }
    });
  const status = (
    <p role="status" aria-live="polite" className={`${s.status} ${state.kind === 'error' ? s.error : state.kind === 'ok' ? s.ok : ''}`}>
      {state.kind === 'idle' ? '' : state.text}
    </p>
  );
  return { run, pending, status, state };
}
