'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError } from '@/app/_lib/trpc-client';
import { useNotify } from '@/app/_ui/toast';

/** Runs one console change: its outcome as a notice, the page read again on success; the answer when it worked, else null. */
export function useChange() {
  const router = useRouter();
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const change = async <T,>(fn: () => Promise<T>, ok: string | ((r: T) => string)): Promise<T | null> => {
    setPending(true);
    try {
      const r = await fn();
      notify('ok', typeof ok === 'function' ? ok(r) : ok);
      router.refresh();
      return r;
    } catch (e) {
      notify('error', describeError(e).message);
      return null;
    } finally {
      setPending(false);
    }
  };
  return { pending, change };
}
