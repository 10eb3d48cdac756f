import Link from 'next/link';
import { TASK_STATUS } from '@/app/_lib/labels';
import { Section } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Empty, Problem } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { PageHead } from './_ui/page-head';
import { consoleSession } from './_ui/session';
import { credits, Stat } from './_ui/stat';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Overview · Console · Steward' };

/** The account at a glance (spec 6): users, organizations, teams, tasks, spend, and what failed lately. */
export default async function ConsoleOverview() {
  const { api } = await consoleSession('/console');
  const [o, { account }] = await Promise.all([api.console.overview(), api.console.settings.account()]);
  const byStatus = Object.entries(o.tasks.byStatus).sort((a, b) => b[1] - a[1]);
  const blocked = o.users.suspended + o.users.inactive;
  return (
    <>
      <PageHead title="Overview" description={`${account.name}: who uses it, what they do, what it costs, what went wrong.`} />
      {account.killSwitch && (
        <Problem>
          <p>
            <strong>The kill switch is engaged:</strong> no task can be created, run or messaged. <Link href="/console/kill-switch">Release it</Link>
          </p>
        </Problem>
      )}
      <div className="my-4 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
        <Stat label="Users" value={o.users.total} note={`${o.users.active} active${blocked ? `, ${blocked} blocked` : ''}`} />
        <Stat label="Organizations" value={o.organizations} />
        <Stat label="Teams" value={o.teams} />
        <Stat label="Tasks" value={o.tasks.total} note={`${o.tasks.open} open, ${o.tasks.createdThisWeek} new this week`} />
        <Stat label="Waiting on their user" value={o.tasks.waitingOnUser} />
        <Stat label="Spend this month" value={credits(o.spend.thisMonthCredits)} note={`credits; ${credits(o.spend.lastSevenDaysCredits)} in the last 7 days`} />
        <Stat label="Failed runs" value={o.errors.failedRunsThisWeek} note="last 7 days" />
        <Stat label="Failed webhook deliveries" value={o.errors.failedDeliveriesThisWeek} note={o.errors.disabledWebhooks ? `${o.errors.disabledWebhooks} endpoint(s) turned off` : 'last 7 days'} href="/console/webhooks" />
        <Stat label="Phone-line requests" value={o.pendingPhoneLines} note="waiting for a number" href="/console/phone-lines" />
        <Stat label="Console members" value={o.consoleMembers} href="/console/members" />
      </div>
      <Section id="failures" title="Recent failures" description="Runs that failed in the last 7 days, newest first." bare>
        {o.errors.recentFailures.length === 0 ? (
          <Empty title="No failed run in the last 7 days" />
        ) : (
          <Table label="Recent failures" head={['When', 'Task', 'What went wrong']}>
            {o.errors.recentFailures.map((f) => (
              <tr key={`${f.taskId}-${f.at}`}>
                <td className="whitespace-nowrap">
                  <Time value={f.at} />
                </td>
                <td className="[overflow-wrap:anywhere]">{f.title}</td>
                <td className="[overflow-wrap:anywhere]">{f.error ?? 'No reason recorded'}</td>
              </tr>
            ))}
          </Table>
        )}
      </Section>
      <Section id="tasks" title="Tasks by status" bare>
        {byStatus.length === 0 ? (
          <Empty title="No task yet">Tasks appear here once the account’s users or their assistants create them.</Empty>
        ) : (
          <Table label="Tasks by status" head={['Status', 'Tasks']}>
            {byStatus.map(([status, n]) => (
              <tr key={status}>
                <td>{TASK_STATUS[status as keyof typeof TASK_STATUS] ?? status}</td>
                <td className="tabular-nums">{n}</td>
              </tr>
            ))}
          </Table>
        )}
      </Section>
    </>
  );
}
