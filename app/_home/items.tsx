'use client';
import Link from 'next/link';
import { useState } from 'react';
import { Countdown } from '@/app/approvals/countdown';
import { STUCK_HINT, TASK_STATUS, when } from '@/app/_lib/labels';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { NeedsMeItem } from '@/app/_lib/types';
import { Badge } from '@/app/_ui/states';
import { TaintNote } from '@/app/_ui/taint-note';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';

type Of<K extends NeedsMeItem['kind']> = Extract<NeedsMeItem, { kind: K }>;
/** Each action reports its outcome and tells the list to read again (the item usually leaves it). */
export type Done = () => void;

function useRun(done: Done) {
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const run = async (fn: () => Promise<unknown>, ok: string) => {
    setPending(true);
    try {
      await fn();
      notify('ok', ok);
      done();
    } catch (e) {
      notify('error', describeError(e).message);
    } finally {
      setPending(false);
    }
  };
  return { pending, run };
}

const taskLink = (id: string, title: string) => (
  <Link href={`/tasks/${id}`}>
    {title}
  </Link>
);

export function CartItem({ item: { cart }, done }: { item: Of<'cart'>; done: Done }) {
  const { pending, run } = useRun(done);
  const label = `“${cart.taskTitle}”`;
  const held = cart.dispatches.find((d) => d.heldBecause)?.heldBecause;
  const first = cart.dispatches[0];
  return (
    <>
      <div className={ui.itemHead}>
        <h3 className={ui.itemTitle}>{taskLink(cart.taskId, cart.taskTitle)}</h3>
        <Badge tone="warn">{cart.status === 'time_boxed' ? 'Time-boxed send' : 'To approve'}</Badge>
      </div>
      <p className={ui.meta}>
        {cart.assistantName ?? 'Your assistant'} staged {cart.dispatches.length === 1 ? 'one action' : `${cart.dispatches.length} actions`}
        {first ? `: ${first.type === 'email' ? `email to ${first.to.join(', ')}${first.subject ? `, “${first.subject}”` : ''}` : first.type.replace('_', ' ')}` : ''}.
      </p>
      {held && <TaintNote sources={held.sources} held />}
      {cart.status === 'time_boxed' && cart.timeBoxedExpiresAt && <Countdown expiresAt={cart.timeBoxedExpiresAt} expiry={cart.timeBoxedExpiry} label={label} onElapsed={done} />}
      <div className={ui.actions}>
        <button className={s.button} type="button" disabled={pending} onClick={() => run(() => trpc.approvals.approve.mutate({ cartId: cart.id, contentHash: cart.contentHash }), `Approved ${label}: it is being sent.`)}>
          Approve and send<span className="sr-only"> {label}</span>
        </button>
        <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.approvals.cancel.mutate({ cartId: cart.id }), `Cancelled ${label}: nothing was sent.`)}>
          Cancel<span className="sr-only"> {label}</span>
        </button>
        <Link href={`/approvals#cart-${cart.id}`}>
          Read it in full or edit<span className="sr-only"> {label}</span>
        </Link>
      </div>
    </>
  );
}

export function QuestionItem({ item: { task, question }, done }: { item: Of<'question'>; done: Done }) {
  const { pending, run } = useRun(done);
  const [answer, setAnswer] = useState('');
  const id = `answer-${task.id}`;
  return (
    <>
      <div className={ui.itemHead}>
        <h3 className={ui.itemTitle}>{taskLink(task.id, task.title)}</h3>
        <Badge tone="warn">Question for you</Badge>
      </div>
      {question ? <p className={ui.pre} data-testid="question">{question}</p> : <p className={ui.muted}>The assistant is waiting for you to reply.</p>}
      {task.tainted && <TaintNote sources={task.taintSources} />}
      <form
        className={ui.actions}
        onSubmit={(e) => {
          e.preventDefault();
          if (answer.trim()) void run(() => trpc.tasks.process.mutate({ taskId: task.id, message: answer }), `Answer sent: “${task.title}” goes on.`);
        }}
      >
        <div className={s.field} style={{ flex: '1 1 18rem' }}>
          <label htmlFor={id}>Your answer</label>
          <textarea id={id} value={answer} rows={2} maxLength={100_000} onChange={(e) => setAnswer(e.target.value)} />
        </div>
        <button className={s.button} type="submit" disabled={pending || !answer.trim()}>
          Send answer<span className="sr-only"> to “{task.title}”</span>
        </button>
      </form>
    </>
  );
}

export function ProposalItem({ item: { task }, done }: { item: Of<'proposal'>; done: Done }) {
  const { pending, run } = useRun(done);
  const label = `“${task.title}”`;
  return (
    <>
      <div className={ui.itemHead}>
        <h3 className={ui.itemTitle}>{taskLink(task.id, task.title)}</h3>
        <Badge tone="accent">Proposed task</Badge>
      </div>
      <p className={ui.meta}>Your assistant proposes this task and waits for your go-ahead.</p>
      {task.description && <p className={ui.pre}>{task.description}</p>}
      {task.tainted && <TaintNote sources={task.taintSources} />}
      <div className={ui.actions}>
        <button className={s.button} type="button" disabled={pending} onClick={() => run(() => trpc.tasks.approve.mutate({ taskId: task.id }), `Approved ${label}: the assistant starts on it.`)}>
          Approve task<span className="sr-only"> {label}</span>
        </button>
        <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.tasks.decline.mutate({ taskId: task.id }), `Declined ${label}.`)}>
          Decline<span className="sr-only"> {label}</span>
        </button>
      </div>
    </>
  );
}

export function StuckItem({ item: { task }, done }: { item: Of<'stuck'>; done: Done }) {
  const { pending, run } = useRun(done);
  return (
    <>
      <div className={ui.itemHead}>
        <h3 className={ui.itemTitle}>{taskLink(task.id, task.title)}</h3>
        <Badge tone={task.status === 'error' || task.status === 'failed_access' ? 'danger' : 'warn'}>{TASK_STATUS[task.status]}</Badge>
      </div>
      <p className={ui.meta}>{STUCK_HINT[task.status] ?? 'It stopped and waits for you.'} Last change {when(task.updatedAt)}.</p>
      {task.tainted && <TaintNote sources={task.taintSources} />}
      <div className={ui.actions}>
        <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.tasks.process.mutate({ taskId: task.id }), `“${task.title}” resumes.`)}>
          Resume<span className="sr-only"> “{task.title}”</span>
        </button>
      </div>
    </>
  );
}

export function HandoffItem({ item: { handoff } }: { item: Of<'handoff'>; done: Done }) {
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const open = async () => {
    setPending(true);
    try {
      const { sessionUrl } = await trpc.handoffs.session.mutate({ handoffId: handoff.id });
      window.location.assign(sessionUrl);
    } catch (e) {
      notify('error', describeError(e).message);
      setPending(false);
    }
  };
  return (
    <>
      <div className={ui.itemHead}>
        <h3 className={ui.itemTitle}>{handoff.prompt || 'Your assistant needs you in the browser'}</h3>
        <Badge tone="warn">Browser handoff</Badge>
      </div>
      <p className={ui.meta}>
        {handoff.targetUrl ? `At ${handoff.targetUrl}. ` : ''}Open until {when(handoff.expiresAt)}.
      </p>
      <div className={ui.actions}>
        <button className={s.button} type="button" disabled={pending} onClick={open}>
          Open the browser<span className="sr-only"> for “{handoff.prompt}”</span>
        </button>
      </div>
    </>
  );
}
