'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError } from '@/app/_lib/trpc-client';
import { useNotify } from '@/app/_ui/toast';

/** Runs one save: its outcome as a notice, the page read again on success. */
export function useSave() {
  const router = useRouter();
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const save = async (fn: () => Promise<unknown>, ok: string): Promise<boolean> => {
    setPending(true);
    try {
      await fn();
      notify('ok', ok);
      router.refresh();
      return true;
    } catch (e) {
      notify('error', describeError(e).message);
      return false;
    } finally {
      setPending(false);
    }
  };
  return { pending, save };
}
