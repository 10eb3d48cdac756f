'use client';
import { useRouter } from 'next/navigation';
import { useState, type ReactNode } from 'react';
import { describeError } from '@/app/_lib/trpc-client';
import { Button } from './button';
import { Dialog, DialogClose } from './dialog';
import { useNotify } from './toast';

/**
 * An icon button that removes something after a confirmation ("Keep" or the danger action): the
 * outcome as a notice, then the page read again (or `afterwards`, when the page itself is gone).
 */
export function ConfirmRemoval(props: {
  title: string;
  description: string;
  /** The trigger's accessible name, e.g. "Remove Ada Lovelace". */
  label: string;
  icon: ReactNode;
  /** The danger button's word: "Remove", "Disconnect". */
  action: string;
  run: () => Promise<unknown>;
  done: string;
  afterwards?: string;
}) {
  const router = useRouter();
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  return (
    <Dialog
      title={props.title}
      description={props.description}
      trigger={
        <Button variant="ghost" size="icon" aria-label={props.label}>
          {props.icon}
        </Button>
      }
    >
      <div className="flex justify-end gap-2">
        <DialogClose asChild>
          <Button variant="secondary">Keep</Button>
        </DialogClose>
        <Button
          variant="danger"
          disabled={pending}
          onClick={async () => {
            setPending(true);
            try {
              await props.run();
              notify('ok', props.done);
              if (props.afterwards) router.push(props.afterwards);
              else router.refresh();
            } catch (err) {
              notify('error', describeError(err).message);
            } finally {
              setPending(false);
            }
          }}
        >
          {props.action}
        </Button>
      </div>
    </Dialog>
  );
}
