import Link from 'next/link';
import { TASK_STATUS, statusTone, when } from '@/app/_lib/labels';
import { readOrNotFound, requireSignedIn } from '@/app/_lib/server-caller';
import { AutoRefresh } from '@/app/_ui/auto-refresh';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Badge } from '@/app/_ui/states';
import { TaintNote } from '@/app/_ui/taint-note';
import ui from '@/app/_ui/ui.module.css';
import { Composer } from './composer';
import css from './task.module.css';
import { TaskActions } from './task-actions';
import { Timeline } from './timeline';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Task · Steward' };

const WORKING = new Set(['pending', 'executing']);
const MARK: Record<string, string> = { done: '✓', pending: '○', skipped: '–', blocked: '!' };

/** One task: what it is doing and waiting for, its conversation, and the person's decisions on it. */
export default async function TaskPage({ params }: { params: Promise<{ taskId: string }> }) {
  const { taskId } = await params;
  const { api, me } = await requireSignedIn(`/tasks/${taskId}`);
  const { task } = await readOrNotFound(api.tasks.get({ taskId }));
  const [{ activities }, { subtasks }, usage] = await Promise.all([api.tasks.activities({ taskId, limit: 100 }), api.tasks.subtasks({ taskId }), api.tasks.usage({ taskId })]);
  const asking = task.status === 'awaiting_user_input';
  const question = asking ? activities.find((a) => a.message?.role === 'assistant')?.message?.content : null;
  const tokens = usage.total.inputTokens + usage.total.outputTokens;
  return (
    <HostedFrame me={me} title={task.title}>
      <AutoRefresh ms={WORKING.has(task.status) ? 2_000 : 10_000} />
      <p className={ui.meta}>
        <Badge tone={statusTone(task.status)}>
          <span data-testid="task-status">{TASK_STATUS[task.status]}</span>
        </Badge>{' '}
        {task.proposalStatus === 'pending_user_approval' && <Badge tone="accent">Proposed by your assistant: waiting for your approval</Badge>} Created {when(task.createdAt)} by{' '}
        {task.createdBy === 'agent' ? 'your assistant' : 'you'} · updated {when(task.updatedAt)}
      </p>
      {task.tainted && <TaintNote sources={task.taintSources} />}
      <TaskActions task={task} />
      <div className={css.layout}>
        <div>
          {asking && question && (
            <section aria-labelledby="question-title" className={ui.card}>
              <h2 id="question-title">The assistant asks</h2>
              <p className={ui.pre} data-testid="question">
                {question}
              </p>
            </section>
          )}
          {task.proposalStatus !== 'pending_user_approval' && (
            <Section id="message-title" title={asking ? 'Answer' : 'Send a message'}>
              <Composer taskId={task.id} asking={asking} />
            </Section>
          )}
          <section aria-labelledby="activity-title">
            <h2 id="activity-title">Activity</h2>
            {activities.length ? <Timeline activities={activities} /> : <p className={ui.muted}>Nothing has happened on this task yet.</p>}
          </section>
        </div>
        <aside className={css.aside} aria-label="About this task">
          {task.description && (
            <section aria-labelledby="desc-title" className={ui.card}>
              <h2 id="desc-title">Description</h2>
              <p className={ui.pre}>{task.description}</p>
            </section>
          )}
          {task.summary && (
            <section aria-labelledby="summary-title" className={ui.card}>
              <h2 id="summary-title">Summary</h2>
              <p className={ui.pre}>{task.summary}</p>
            </section>
          )}
          <section aria-labelledby="plan-title" className={ui.card}>
            <h2 id="plan-title">Plan</h2>
            {task.plan.length ? (
              <ul className={css.plan}>
                {task.plan.map((p, i) => (
                  <li key={i} data-mark={MARK[p.status]}>
                    {p.title} <span className={ui.muted}>({p.status})</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className={ui.muted}>No plan yet.</p>
            )}
          </section>
          {task.pendingCart && (
            <section aria-labelledby="cart-title" className={ui.card}>
              <h2 id="cart-title">Waiting for your approval</h2>
              <p>
                {task.pendingCart.dispatchCount === 1 ? 'One action is' : `${task.pendingCart.dispatchCount} actions are`} staged
                {task.pendingCart.timeBoxedExpiresAt ? `, sent at ${when(task.pendingCart.timeBoxedExpiresAt)} unless you act` : ''}.
              </p>
              <Link href={`/approvals#cart-${task.pendingCart.id}`}>Review what it will send</Link>
            </section>
          )}
          <section aria-labelledby="facts-title" className={ui.card}>
            <h2 id="facts-title">Details</h2>
            <dl className={ui.dl}>
              <dt>Alarm</dt>
              <dd>{task.alarm ? `${task.alarm.headline ?? 'Wakes'}: ${when(task.alarm.wakeAt)} (${task.alarm.status})` : 'none'}</dd>
              {task.scheduledFor && (
                <>
                  <dt>Scheduled for</dt>
                  <dd>{when(task.scheduledFor)}</dd>
                </>
              )}
              <dt>Waiting on</dt>
              <dd>{task.waitingOnContacts.length ? task.waitingOnContacts.map((c) => c.name ?? c.email).join(', ') : 'nobody'}</dd>
              <dt>Followers</dt>
              <dd>{task.followers.join(', ')}</dd>
              <dt>Approval mode</dt>
              <dd>{task.effectiveApprovalMode ?? 'from your autonomy settings'}</dd>
              <dt>Model tier</dt>
              <dd>{task.modelTier}</dd>
            </dl>
          </section>
          <section aria-labelledby="subtasks-title" className={ui.card}>
            <h2 id="subtasks-title">Subtasks</h2>
            {subtasks.length ? (
              <ul>
                {subtasks.map((t) => (
                  <li key={t.id}>
                    <Link href={`/tasks/${t.id}`}>{t.title}</Link> <span className={ui.muted}>({TASK_STATUS[t.status]})</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className={ui.muted}>None.</p>
            )}
            {task.parentTask && <Link href={`/tasks/${task.parentTask}`}>Open the parent task</Link>}
          </section>
          <section aria-labelledby="usage-title" className={ui.card}>
            <h2 id="usage-title">Usage and credits</h2>
            <dl className={ui.dl}>
              <dt>Model calls</dt>
              <dd>{usage.rows.length}</dd>
              <dt>Tokens</dt>
              <dd>{tokens.toLocaleString('en-GB')}</dd>
              <dt>Credits</dt>
              <dd>{usage.credits.total.toLocaleString('en-GB', { maximumFractionDigits: 4 })}</dd>
            </dl>
          </section>
        </aside>
      </div>
    </HostedFrame>
  );
}
