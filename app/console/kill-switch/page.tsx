import { Power } from 'lucide-react';
import { cn } from '@/app/_ui/cn';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { KillSwitchControl } from './kill-switch-control';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Kill switch · Console · Steward' };

/** The account-wide kill switch (spec 1): while engaged, creating, running or messaging tasks answers 423 KILL_SWITCH_ENGAGED. */
export default async function ConsoleKillSwitch() {
  const { api, canChange } = await consoleSession('/console/kill-switch');
  const { account } = await api.console.settings.account();
  return (
    <>
      <PageHead title="Kill switch" />
      <div className={cn('max-w-prose rounded-lg border-2 p-5', account.killSwitch ? 'border-danger bg-danger-soft' : 'border-border bg-raised')}>
        <p role="status" className="flex items-center gap-2 text-lg font-semibold">
          <Power aria-hidden="true" className={cn('size-5', account.killSwitch ? 'text-danger' : 'text-ok')} />
          {account.killSwitch ? 'Engaged: the account is frozen.' : 'Released: the account works normally.'}
        </p>
        <p className="mt-2 text-muted">
          While engaged, no task can be created, run or messaged by anyone, through the API or the app (the API answers 423 KILL_SWITCH_ENGAGED). Everything else, reading included, goes on. Runs in progress stop at their next step.
        </p>
        {canChange && (
          <div className="mt-4">
            <KillSwitchControl engaged={account.killSwitch} />
          </div>
        )}
      </div>
    </>
  );
}
