import { Download } from 'lucide-react';
import Link from 'next/link';
import { Button, buttonClass } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Field, FormRow } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { AUDIT_ACTIONS } from '@/server/audit/actions';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { auditParams, auditQuery } from './filters';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Audit log · Console · Steward' };

/** Who changed what in the account (spec 5, Audit events), newest first, filtered, exported as CSV or JSON. */
export default async function ConsoleAudit({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const params = await searchParams;
  const { api } = await consoleSession('/console/audit');
  const filters = auditQuery(params);
  const cursor = params.cursor && /^[A-Za-z0-9_-]{1,200}$/.test(params.cursor) ? params.cursor : undefined;
  const page = await api.console.audit.list({ filters, cursor, limit: 50 });
  return (
    <>
      <PageHead
        title="Audit log"
        description="Every security-relevant change in the account: who made it, from where, and the settings before and after (never a secret)."
        actions={
          <>
            <a href={`/console/audit/export?${auditParams(params, { format: 'csv' })}`} className={buttonClass('secondary', 'sm')} download>
              <Download aria-hidden="true" />
              CSV<span className="sr-only"> export of the events that match</span>
            </a>
            <a href={`/console/audit/export?${auditParams(params, { format: 'json' })}`} className={buttonClass('secondary', 'sm')} download>
              <Download aria-hidden="true" />
              JSON<span className="sr-only"> export of the events that match</span>
            </a>
          </>
        }
      />
      <form method="get" aria-label="Filter the audit log" className="mb-4 rounded-lg border border-border bg-raised p-4">
        <FormRow>
          <Field id="f-action" label="Action">
            <Select id="f-action" name="action" defaultValue={filters.action ?? ''}>
              <option value="">Every action</option>
              {AUDIT_ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="f-actor" label="Actor id">
            <Input id="f-actor" name="actor" defaultValue={filters.actorId ?? ''} placeholder="a user, key or run id" />
          </Field>
          <Field id="f-target" label="Target id">
            <Input id="f-target" name="target" defaultValue={filters.targetId ?? ''} />
          </Field>
          <Field id="f-since" label="From (UTC)">
            <Input id="f-since" name="since" type="date" defaultValue={params.since ?? ''} />
          </Field>
          <Field id="f-until" label="To (UTC)">
            <Input id="f-until" name="until" type="date" defaultValue={params.until ?? ''} />
          </Field>
          <Button type="submit" variant="secondary">
            Filter
          </Button>
        </FormRow>
      </form>
      {page.events.length === 0 ? (
        <Empty title="No event matches" />
      ) : (
        <Table label="Audit events" head={['When', 'Action', 'Who', 'Target', 'Change']}>
          {page.events.map((e) => (
            <tr key={e.id}>
              <td className="whitespace-nowrap">
                <Time value={e.occurredAt} />
              </td>
              <td>
                <code>{e.action}</code>
              </td>
              <td className="[overflow-wrap:anywhere]">
                {e.actor.email ?? e.actor.type.replace('_', ' ')}
                {e.actor.id ? (
                  <span className="block text-xs text-muted">
                    {e.actor.type} {e.actor.id}
                  </span>
                ) : null}
                {e.ip ? <span className="block text-xs text-muted">from {e.ip}</span> : null}
              </td>
              <td className="[overflow-wrap:anywhere]">
                {e.target.type} {e.target.id ? <code className="text-xs">{e.target.id}</code> : null}
              </td>
              <td className="[overflow-wrap:anywhere]">
                {e.changes ? (
                  <details>
                    <summary className="cursor-pointer text-sm text-muted">
                      Before and after<span className="sr-only"> of event {e.id}</span>
                    </summary>
                    <pre className="mt-1 max-h-64 overflow-auto rounded-md bg-surface p-2 text-xs whitespace-pre-wrap">{JSON.stringify({ before: e.changes.before, after: e.changes.after }, null, 2)}</pre>
                  </details>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <nav aria-label="Audit log pages" className="mt-3 flex gap-3">
        {cursor && <Link href={`/console/audit?${auditParams(params)}`}>Newest events</Link>}
        {page.hasMore && page.cursor && <Link href={`/console/audit?${auditParams(params, { cursor: page.cursor })}`}>Older events</Link>}
      </nav>
    </>
  );
}
