'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { Task } from '@/app/_lib/types';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';

const OPEN = new Set(['pending', 'executing', 'awaiting_user_input', 'awaiting_non_user_response', 'alarm_set', 'subtasks_running', 'scheduled', 'message_received', 'conversation', 'deferred_access']);
const ENDED = new Set(['completed', 'done_user_marked']);

/** The person's decisions on a task: approve or decline a proposal, stop, mark done or not done, feedback. */
export function TaskActions({ task }: { task: Task }) {
  const router = useRouter();
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const [reason, setReason] = useState('');
  const [declining, setDeclining] = useState(false);
  const run = async (fn: () => Promise<unknown>, ok: string) => {
    setPending(true);
    try {
      await fn();
      notify('ok', ok);
      router.refresh();
    } catch (e) {
      notify('error', describeError(e).message);
    } finally {
      setPending(false);
    }
  };
  const id = { taskId: task.id };
  return (
    <div className={ui.actions}>
      {task.proposalStatus === 'pending_user_approval' && (
        <>
          <button className={s.button} type="button" disabled={pending} onClick={() => run(() => trpc.tasks.approve.mutate(id), 'Approved: the assistant starts on it.')}>
            Approve task
          </button>
          <Dialog
            open={declining}
            onOpenChange={setDeclining}
            title="Decline this task?"
            description="The assistant is told, with your reason if you give one, and follows up."
            trigger={
              <button className={s.secondary} type="button" disabled={pending}>
                Decline
              </button>
            }
          >
            <form
              onSubmit={(e) => {
                e.preventDefault();
                setDeclining(false);
                void run(() => trpc.tasks.decline.mutate({ ...id, ...(reason.trim() ? { reason } : {}) }), 'Declined.');
              }}
            >
              <div className={s.field}>
                <label htmlFor="decline-reason">Reason (optional)</label>
                <textarea id="decline-reason" value={reason} onChange={(e) => setReason(e.target.value)} />
              </div>
              <div className={ui.actions}>
                <button className={s.danger} type="submit">
                  Decline task
                </button>
                <DialogClose asChild>
                  <button className={s.secondary} type="button">
                    Keep it
                  </button>
                </DialogClose>
              </div>
            </form>
          </Dialog>
        </>
      )}
      {OPEN.has(task.status) && task.proposalStatus !== 'pending_user_approval' && (
        <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.tasks.stop.mutate(id), 'Stopped: the task is on hold.')}>
          Stop
        </button>
      )}
      {!ENDED.has(task.status) ? (
        <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.tasks.markDone.mutate(id), 'Marked done.')}>
          Mark done
        </button>
      ) : (
        <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.tasks.markNotDone.mutate(id), 'Marked not done: the assistant asks how to go on.')}>
          Mark not done
        </button>
      )}
      <span className={s.inline} role="group" aria-label="Feedback">
        <button className={s.secondary} type="button" aria-pressed={task.feedback === 'like'} disabled={pending} onClick={() => run(() => trpc.tasks.feedback.mutate({ ...id, status: task.feedback === 'like' ? null : 'like' }), 'Thanks for the feedback.')}>
          <span aria-hidden="true">👍</span> Helpful
        </button>
        <button className={s.secondary} type="button" aria-pressed={task.feedback === 'dislike'} disabled={pending} onClick={() => run(() => trpc.tasks.feedback.mutate({ ...id, status: task.feedback === 'dislike' ? null : 'dislike' }), 'Thanks for the feedback.')}>
          <span aria-hidden="true">👎</span> Not helpful
        </button>
      </span>
    </div>
  );
}
