import { Section } from '@/app/_ui/field';
import { Fields, Table } from '@/app/_ui/list';
import { Pager, pageParam } from '@/app/_ui/pager';
import { Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { credits } from '../_ui/stat';
import { BudgetActions, CreateBudget, LimitsForm, RateLimitsForm } from './limit-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Limits and budgets · Console · Steward' };

const PER_PAGE = 50;

const LIMIT_LABELS = {
  runMaxModelCalls: 'Model calls per run',
  runMaxToolCalls: 'Tool calls per run',
  taskTreeMax: 'Tasks in one task tree',
  userMaxConcurrentRuns: 'Runs at once per user',
  browsersPerAccount: 'Browsers at once for the account',
} as const;

const PERIOD = { day: 'per day', week: 'per week', month: 'per month', none: 'balance' } as const;

/** The account's limits (spec 5), its API rate limits, and credit budgets for it, its organizations, teams and users. */
export default async function ConsoleLimits({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const page = pageParam((await searchParams).page);
  const { api, canChange, ctx } = await consoleSession('/console/limits');
  const [limits, { account }, budgets, directory] = await Promise.all([api.console.limits.limits(), api.console.settings.account(), api.console.limits.budgets({ page, perPage: PER_PAGE }), api.console.directory()]);
  const rows = (Object.keys(LIMIT_LABELS) as Array<keyof typeof LIMIT_LABELS>).map((k) => ({
    key: k,
    label: LIMIT_LABELS[k],
    deployment: limits.deployment[k],
    override: (limits.overrides as Record<string, number | undefined>)[k] ?? null,
    inForce: limits.limits[k],
  }));
  const scopeName = (scope: string, id: string) => (scope === 'account' ? 'The whole account' : (budgets.names[id] ?? id));
  return (
    <>
      <PageHead title="Limits and budgets" />
      <Section id="limits" title="Limits" description="Each limit follows the deployment’s value unless the account sets its own." bare>
        <LimitsForm rows={rows} canChange={canChange} />
      </Section>
      <Section id="rate-limits" title="API rate limits" description="Requests per minute for the account’s credentials; empty follows the deployment.">
        {canChange ? (
          <RateLimitsForm reads={account.rateLimits.reads} writes={account.rateLimits.writes} />
        ) : (
          <Fields
            rows={[
              ['Reads per minute', account.rateLimits.reads ?? 'The deployment’s'],
              ['Writes per minute', account.rateLimits.writes ?? 'The deployment’s'],
            ]}
          />
        )}
      </Section>
      <Section id="budgets" title="Credit budgets" description="Spend is capped per period for the account, an organization, a team or one user; tasks wait when a budget covering their user is spent." bare>
        {budgets.budgets.length === 0 ? (
          <Empty title="No budget">Without a budget, spend is not capped.</Empty>
        ) : (
          <Table label="Credit budgets" head={['Covers', 'Limit', 'Spent this period', 'Remaining', 'Period ends', ...(canChange ? ['Actions'] : [])]}>
            {budgets.budgets.map((b) => (
              <tr key={b.id}>
                <td className="[overflow-wrap:anywhere]">
                  {scopeName(b.scope, b.scopeId)} <span className="text-muted">({b.scope})</span>
                </td>
                <td className="whitespace-nowrap tabular-nums">
                  {credits(b.current.limitCredits)} {PERIOD[b.period]}
                </td>
                <td className="tabular-nums">{credits(b.current.spentCredits)}</td>
                <td className="tabular-nums">{credits(b.current.remainingCredits)}</td>
                <td className="whitespace-nowrap">{b.current.periodEnd ? <Time value={b.current.periodEnd} /> : '—'}</td>
                {canChange && (
                  <td>
                    <BudgetActions id={b.id} label={scopeName(b.scope, b.scopeId)} />
                  </td>
                )}
              </tr>
            ))}
          </Table>
        )}
        <Pager label="Budgets" param="page" page={page} perPage={PER_PAGE} total={budgets.total} />
      </Section>
      {canChange && (
        <Section id="new-budget" title="Create a budget">
          <CreateBudget accountId={ctx.account.id} organizations={directory.organizations} teams={directory.teams} />
        </Section>
      )}
    </>
  );
}
