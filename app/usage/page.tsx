import { Time } from '@/app/_ui/time';
import Link from 'next/link';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { Section } from '@/app/_ui/field';
import { Empty, Problem } from '@/app/_ui/states';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Usage · Steward' };

const SCOPE: Record<string, string> = { account: 'Your company', organization: 'Your organization', team: 'Your team', user: 'You' };
const PERIOD: Record<string, string> = { day: 'today', week: 'this week', month: 'this month', none: 'in all' };
const credits = (n: number) => n.toLocaleString('en-GB', { maximumFractionDigits: 2 });
const RECENT = 10;

/** What the person's assistants cost: the budgets covering them this period, and their latest tasks' credits. */
export default async function Usage() {
  const { api, me } = await requireSignedIn('/usage');
  const [{ credits: mine }, { tasks }] = await Promise.all([api.usage.credits(), api.tasks.list({ perPage: RECENT })]);
  const usage = await Promise.all(tasks.map((t) => api.tasks.usage({ taskId: t.id })));
  return (
    <HostedFrame me={me} title="Usage">
      {mine.blocked && (
        <Problem>
          <p>A budget covering you is spent: your assistants pause until credits are available again.</p>
        </Problem>
      )}
      <Section id="budgets-title" title="Budgets covering you">
        {mine.budgets.length === 0 ? (
          <Empty title="No budget limits your assistants.">
            <p>Your administrator may set one; it would show here with what is left.</p>
          </Empty>
        ) : (
          <table className={s.table} tabIndex={0}>
            <caption className="sr-only">Credits per budget this period</caption>
            <thead>
              <tr>
                <th scope="col">Budget</th>
                <th scope="col">Period</th>
                <th scope="col">Spent</th>
                <th scope="col">Reserved</th>
                <th scope="col">Left</th>
                <th scope="col">Limit</th>
              </tr>
            </thead>
            <tbody>
              {mine.budgets.map((b) => (
                <tr key={`${b.budgetId}-${b.memberShare}`}>
                  <th scope="row">
                    {SCOPE[b.scope] ?? b.scope}
                    {b.memberShare ? ' (your share)' : ''}
                  </th>
                  <td>{PERIOD[b.period] ?? b.period}</td>
                  <td>{credits(b.spentCredits)}</td>
                  <td>{credits(b.reservedCredits)}</td>
                  <td>{credits(b.remainingCredits)}</td>
                  <td>{credits(b.limitCredits)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section id="recent-title" title="Your latest tasks">
        {tasks.length === 0 ? (
          <p className={ui.muted}>No task has run yet.</p>
        ) : (
          <table className={s.table} tabIndex={0}>
            <caption className="sr-only">Model calls and credits of your latest tasks</caption>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Created</th>
                <th scope="col">Model calls</th>
                <th scope="col">Tokens</th>
                <th scope="col">Credits</th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((t, i) => (
                <tr key={t.id}>
                  <th scope="row">
                    <Link href={`/tasks/${t.id}`}>{t.title}</Link>
                  </th>
                  <td><Time value={t.createdAt} /></td>
                  <td>{usage[i].rows.length}</td>
                  <td>{(usage[i].total.inputTokens + usage[i].total.outputTokens).toLocaleString('en-GB')}</td>
                  <td>{credits(usage[i].credits.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </HostedFrame>
  );
}
