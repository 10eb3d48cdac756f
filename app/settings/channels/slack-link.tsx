'use client';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';

/** Links the person's Slack identity to an assistant: the OAuth flow, bound to this browser. */
export function SlackLink({ assistantId, name }: { assistantId: string; name: string }) {
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  return (
    <button
      className={s.secondary}
      type="button"
      disabled={pending}
      onClick={async () => {
        setPending(true);
        try {
          window.location.assign((await trpc.channels.slackLink.mutate({ assistantId })).url);
        } catch (e) {
          notify('error', describeError(e).message);
          setPending(false);
        }
      }}
    >
      Link {name} to your Slack account
    </button>
  );
}
