import { CheckCircle2, Circle, MinusCircle, AlertCircle } from 'lucide-react';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { APPROVAL_MODE, TASK_STATUS, TIER, statusTone } from '@/app/_lib/labels';
import { LiveRefresh } from '@/app/_lib/live';
import { readOrNotFound, requireSignedIn } from '@/app/_lib/server-caller';
import { AutoRefresh } from '@/app/_ui/auto-refresh';
import { HostedFrame } from '@/app/_ui/layout';
import { Card } from '@/app/_ui/list';
import { Badge } from '@/app/_ui/states';
import { TaintNote } from '@/app/_ui/taint-note';
import { Time } from '@/app/_ui/time';
import { Composer } from './composer';
import { TaskActions } from './task-actions';
import { Timeline } from './timeline';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Task · Steward' };

const WORKING = new Set(['pending', 'executing']);
const MARK: Record<string, ReactNode> = {
  done: <CheckCircle2 aria-label="done" className="size-4 text-ok" />,
  pending: <Circle aria-label="to do" className="size-4 text-muted" />,
  skipped: <MinusCircle aria-label="skipped" className="size-4 text-muted" />,
  blocked: <AlertCircle aria-label="blocked" className="size-4 text-warn" />,
};

function Side({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card aria-labelledby={id} role="region" className="p-4 sm:p-4">
      <h2 id={id} className="mb-2 text-base">
        {title}
      </h2>
      {children}
    </Card>
  );
}

/** One task: what it is doing and waiting for, its conversation, and the person's decisions on it. Live. */
export default async function TaskPage({ params }: { params: Promise<{ taskId: string }> }) {
  const { taskId } = await params;
  const { api, me } = await requireSignedIn(`/tasks/${taskId}`);
  const { task } = await readOrNotFound(api.tasks.get({ taskId }));
  const [{ activities }, { subtasks }, usage, { assistants }] = await Promise.all([api.tasks.activities({ taskId, limit: 100 }), api.tasks.subtasks({ taskId }), api.tasks.usage({ taskId }), api.channels.roster()]);
  const assistant = assistants.find((a) => a.id === task.assistant)?.name ?? 'Your assistant';
  const asking = task.status === 'awaiting_user_input';
  const question = asking ? activities.find((a) => a.message?.role === 'assistant')?.message?.content : null;
  const tokens = usage.total.inputTokens + usage.total.outputTokens;
  const fmt = new Intl.NumberFormat(me.prefs?.locale ?? 'en', { maximumFractionDigits: 4 });
  return (
    <HostedFrame
      me={me}
      title={task.title}
      width="wide"
      description={
        <span className="flex flex-wrap items-center gap-2 text-sm">
          <Badge tone={statusTone(task.status)}>
            <span data-testid="task-status">{TASK_STATUS[task.status]}</span>
          </Badge>
          {task.proposalStatus === 'pending_user_approval' && <Badge tone="accent">Proposed by {assistant}: waiting for your approval</Badge>}
          <span>
            Started <Time value={task.createdAt} /> by {task.createdBy === 'agent' ? assistant : 'you'} · updated <Time value={task.updatedAt} />
          </span>
        </span>
      }
    >
      <LiveRefresh topics={['tasks']} />
      <AutoRefresh ms={WORKING.has(task.status) ? 2_000 : 15_000} />
      {task.tainted && <TaintNote sources={task.taintSources} />}
      <TaskActions task={task} />
      <div className="mt-4 grid items-start gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(16rem,1fr)]">
        <div className="flex min-w-0 flex-col gap-6">
          {asking && question && (
            <section aria-labelledby="question-title" className="rounded-lg border border-accent/40 bg-accent-soft p-4">
              <h2 id="question-title" className="mb-1 text-base">
                {assistant} asks
              </h2>
              <p className="whitespace-pre-wrap [overflow-wrap:anywhere]" data-testid="question">
                {question}
              </p>
            </section>
          )}
          {task.proposalStatus !== 'pending_user_approval' && (
            <section aria-labelledby="message-title">
              <h2 id="message-title" className="mb-2">
                {asking ? 'Answer' : 'Send a message'}
              </h2>
              <Composer taskId={task.id} asking={asking} />
            </section>
          )}
          <section aria-labelledby="activity-title">
            <h2 id="activity-title" className="mb-2">
              Activity
            </h2>
            {activities.length ? <Timeline activities={activities} assistant={assistant} /> : <p className="text-muted">Nothing has happened on this task yet.</p>}
          </section>
        </div>
        <aside className="flex flex-col gap-4" aria-label="About this task">
          {task.pendingCart && (
            <Side id="cart-title" title="Waiting for your approval">
              <p className="mb-2 text-sm">
                {task.pendingCart.dispatchCount === 1 ? 'One thing is' : `${task.pendingCart.dispatchCount} things are`} ready to send
                {task.pendingCart.timeBoxedExpiresAt ? (
                  <>
                    , sent <Time value={task.pendingCart.timeBoxedExpiresAt} /> unless you act
                  </>
                ) : (
                  ''
                )}
                .
              </p>
              <Link href={`/approvals#cart-${task.pendingCart.id}`}>Review what it will send</Link>
            </Side>
          )}
          {task.description && (
            <Side id="desc-title" title="Description">
              <p className="text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">{task.description}</p>
            </Side>
          )}
          {task.summary && (
            <Side id="summary-title" title="Summary">
              <p className="text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">{task.summary}</p>
            </Side>
          )}
          {task.plan.length > 0 && (
            <Side id="plan-title" title="Plan">
              <ul className="flex flex-col gap-1 text-sm">
                {task.plan.map((p, i) => (
                  <li key={i} className="flex items-start gap-2">
                    <span className="mt-0.5">{MARK[p.status]}</span>
                    {p.title}
                  </li>
                ))}
              </ul>
            </Side>
          )}
          {(task.alarm || task.scheduledFor || task.waitingOnContacts.length > 0) && (
            <Side id="when-title" title="Waiting">
              <ul className="flex flex-col gap-1 text-sm">
                {task.alarm && (
                  <li>
                    {task.alarm.headline ?? 'Wakes'} <Time value={task.alarm.wakeAt} />
                    {task.alarm.status !== 'set' ? ` (${task.alarm.status})` : ''}
                  </li>
                )}
                {task.scheduledFor && (
                  <li>
                    Starts <Time value={task.scheduledFor} />
                  </li>
                )}
                {task.waitingOnContacts.length > 0 && <li>Waiting to hear from {task.waitingOnContacts.map((c) => c.name ?? c.email).join(', ')}</li>}
              </ul>
            </Side>
          )}
          {(subtasks.length > 0 || task.parentTask) && (
            <Side id="subtasks-title" title="Related tasks">
              {subtasks.length > 0 && (
                <ul className="flex flex-col gap-1 text-sm">
                  {subtasks.map((t) => (
                    <li key={t.id}>
                      <Link href={`/tasks/${t.id}`}>{t.title}</Link> <span className="text-muted">({TASK_STATUS[t.status]})</span>
                    </li>
                  ))}
                </ul>
              )}
              {task.parentTask && (
                <Link href={`/tasks/${task.parentTask}`} className="text-sm">
                  Open the parent task
                </Link>
              )}
            </Side>
          )}
          <Side id="usage-title" title="Usage and credits">
            <p className="text-sm">
              {fmt.format(usage.credits.total)} credits · {usage.rows.length} model {usage.rows.length === 1 ? 'call' : 'calls'}
            </p>
            <details className="mt-2 text-sm text-muted">
              <summary className="inline-flex min-h-11 cursor-pointer items-center sm:min-h-0">Details</summary>
              <dl className="mt-1 grid grid-cols-[max-content_1fr] gap-x-3">
                <dt>Tokens</dt>
                <dd>{fmt.format(tokens)}</dd>
                <dt>Model</dt>
                <dd>{TIER[task.modelTier] ?? task.modelTier}</dd>
                <dt>Sending</dt>
                <dd>{task.effectiveApprovalMode ? (APPROVAL_MODE[task.effectiveApprovalMode] ?? task.effectiveApprovalMode) : 'As in your autonomy settings'}</dd>
                <dt>Followers</dt>
                <dd className="[overflow-wrap:anywhere]">{task.followers.join(', ') || 'none'}</dd>
              </dl>
            </details>
          </Side>
        </aside>
      </div>
    </HostedFrame>
  );
}
