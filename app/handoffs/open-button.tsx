'use client';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';

/** Asks for a fresh single-use session link and opens the live view (/handoffs/{id}) with it. */
export function OpenHandoff({ handoffId, label }: { handoffId: string; label: string }) {
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  return (
    <button
      className={s.button}
      type="button"
      disabled={pending}
      onClick={async () => {
        setPending(true);
        try {
          const { sessionUrl } = await trpc.handoffs.session.mutate({ handoffId });
          window.location.assign(sessionUrl);
        } catch (e) {
          notify('error', describeError(e).message);
          setPending(false);
        }
      }}
    >
      Open the browser<span className="sr-only"> for {label}</span>
    </button>
  );
}
