'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Field, FormRow } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Confirm } from '../_ui/confirm';
import { useChange } from '../_ui/use-change';

type LimitRow = { key: string; label: string; deployment: number; override: number | null; inForce: number };
const toLimit = (v: string) => (v.trim() === '' ? null : Number(v));

/** Each limit: empty follows the deployment, a number is the account's own. */
export function LimitsForm({ rows, canChange }: { rows: LimitRow[]; canChange: boolean }) {
  const { pending, change } = useChange();
  const [values, setValues] = useState(() => Object.fromEntries(rows.map((r) => [r.key, r.override === null ? '' : String(r.override)])));
  const table = (
    <Table label="Limits" head={['Limit', 'Deployment', 'Account', 'In force']}>
      {rows.map((r) => (
        <tr key={r.key}>
          <td>{r.label}</td>
          <td className="tabular-nums">{r.deployment}</td>
          <td className="min-w-32">
            {canChange ? (
              <Input
                type="number"
                min={1}
                max={1000000}
                inputMode="numeric"
                aria-label={`${r.label}: the account’s own (empty: the deployment’s)`}
                placeholder="Deployment’s"
                value={values[r.key]}
                onChange={(e) => setValues((v) => ({ ...v, [r.key]: e.target.value }))}
              />
            ) : (
              (r.override ?? '—')
            )}
          </td>
          <td className="tabular-nums">{r.inForce}</td>
        </tr>
      ))}
    </Table>
  );
  if (!canChange) return table;
  return (
    <form
      aria-label="Limits"
      onSubmit={(e) => {
        e.preventDefault();
        void change(() => trpc.console.limits.setLimits.mutate(Object.fromEntries(rows.map((r) => [r.key, toLimit(values[r.key]!)]))), 'Limits saved.');
      }}
    >
      {table}
      <div className="mt-3">
        <Button type="submit" disabled={pending}>
          Save limits
        </Button>
      </div>
    </form>
  );
}

/** Requests per minute for the account's credentials; empty follows the deployment. */
export function RateLimitsForm({ reads, writes }: { reads: number | null; writes: number | null }) {
  const { pending, change } = useChange();
  const [r, setR] = useState(reads === null ? '' : String(reads));
  const [w, setW] = useState(writes === null ? '' : String(writes));
  return (
    <form
      aria-label="API rate limits"
      onSubmit={(e) => {
        e.preventDefault();
        void change(() => trpc.console.limits.setRateLimits.mutate({ reads: toLimit(r), writes: toLimit(w) }), 'Rate limits saved.');
      }}
    >
      <FormRow>
        <Field id="rl-reads" label="Reads per minute">
          <Input id="rl-reads" type="number" min={1} inputMode="numeric" placeholder="Deployment’s" value={r} onChange={(e) => setR(e.target.value)} />
        </Field>
        <Field id="rl-writes" label="Writes per minute">
          <Input id="rl-writes" type="number" min={1} inputMode="numeric" placeholder="Deployment’s" value={w} onChange={(e) => setW(e.target.value)} />
        </Field>
        <Button type="submit" disabled={pending}>
          Save rate limits
        </Button>
      </FormRow>
    </form>
  );
}

type Scope = 'account' | 'organization' | 'team' | 'user';

/** A budget for the account, an organization, a team, or a user named by email. */
export function CreateBudget({ accountId, organizations, teams }: { accountId: string; organizations: Array<{ id: string; name: string }>; teams: Array<{ id: string; name: string }> }) {
  const { pending, change } = useChange();
  const [scope, setScope] = useState<Scope>('account');
  const [target, setTarget] = useState('');
  const [email, setEmail] = useState('');
  const [period, setPeriod] = useState<'day' | 'week' | 'month' | 'none'>('month');
  const [limit, setLimit] = useState('');
  const choices = scope === 'organization' ? organizations : scope === 'team' ? teams : [];
  return (
    <form
      aria-label="Create a budget"
      onSubmit={(e) => {
        e.preventDefault();
        const scopeId = scope === 'account' ? accountId : scope === 'user' ? undefined : target;
        void change(() => trpc.console.limits.createBudget.mutate({ scope, scopeId, ...(scope === 'user' ? { userEmail: email } : {}), period, limitCredits: Number(limit) }), 'Budget created.').then((r) => r && setLimit(''));
      }}
    >
      <FormRow>
        <Field id="budget-scope" label="Covers">
          <Select
            id="budget-scope"
            value={scope}
            onChange={(e) => {
              setScope(e.target.value as Scope);
              setTarget('');
            }}
          >
            <option value="account">The whole account</option>
            <option value="organization">An organization</option>
            <option value="team">A team</option>
            <option value="user">One user</option>
          </Select>
        </Field>
        {(scope === 'organization' || scope === 'team') && (
          <Field id="budget-target" label={scope === 'organization' ? 'Organization' : 'Team'}>
            <Select id="budget-target" required value={target} onChange={(e) => setTarget(e.target.value)}>
              <option value="">Choose…</option>
              {choices.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </Select>
          </Field>
        )}
        {scope === 'user' && (
          <Field id="budget-email" label="User’s email">
            <Input id="budget-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
        )}
        <Field id="budget-period" label="Period">
          <Select id="budget-period" value={period} onChange={(e) => setPeriod(e.target.value as typeof period)}>
            <option value="day">Per day</option>
            <option value="week">Per week</option>
            <option value="month">Per month</option>
            <option value="none">A balance (top-ups only)</option>
          </Select>
        </Field>
        <Field id="budget-limit" label="Credits">
          <Input id="budget-limit" type="number" min={0} step="any" required value={limit} onChange={(e) => setLimit(e.target.value)} />
        </Field>
        <Button type="submit" disabled={pending || limit === ''}>
          Create budget
        </Button>
      </FormRow>
    </form>
  );
}

/** Top up this period, or delete the budget. */
export function BudgetActions({ id, label }: { id: string; label: string }) {
  const { pending, change } = useChange();
  const [amount, setAmount] = useState('');
  const [open, setOpen] = useState(false);
  return (
    <div className="flex flex-wrap gap-1">
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title={`Top up: ${label}`}
        description="Credits added to the current period (to the balance, for a balance budget)."
        trigger={
          <Button variant="secondary" size="sm" disabled={pending}>
            Top up<span className="sr-only"> {label}</span>
          </Button>
        }
      >
        <form
          className="flex flex-col gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            void change(() => trpc.console.limits.topUp.mutate({ budgetId: id, credits: Number(amount) }), 'Budget topped up.').then((r) => {
              if (r) {
                setAmount('');
                setOpen(false);
              }
            });
          }}
        >
          <Field id={`topup-${id}`} label="Credits">
            <Input id={`topup-${id}`} type="number" min={0} step="any" required value={amount} onChange={(e) => setAmount(e.target.value)} />
          </Field>
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={pending || !amount}>
              Add credits
            </Button>
            <DialogClose asChild>
              <Button variant="secondary">Cancel</Button>
            </DialogClose>
          </div>
        </form>
      </Dialog>
      <Confirm
        label="Delete"
        srLabel={`budget for ${label}`}
        disabled={pending}
        title={`Delete the budget for ${label}?`}
        description="Its spend is no longer capped; tasks it held back resume."
        confirm="Delete budget"
        onConfirm={() => void change(() => trpc.console.limits.deleteBudget.mutate({ budgetId: id }), 'Budget deleted.')}
      />
    </div>
  );
}
