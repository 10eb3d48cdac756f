import { Time } from '@/app/_ui/time';
import Link from 'next/link';
import { readOrNotFound } from '@/app/_lib/server-caller';
import { Field, Section } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import { OrgFrame, orgPage } from '../_ui/org-frame';
import { AUDIT_ACTIONS, type AuditAction } from '@/server/audit/actions';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Audit log · Steward' };

const isAction = (v: string | undefined): v is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(v ?? '');
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * The organization's audit log for its admins (spec 5, Audit events): who did what, newest first,
 * filtered by action, a page at a time (the API's cursor). Read through the same service as
 * GET /api/audit-events with the session's person; anyone else gets the not-found page.
 */
export default async function OrganizationAudit({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<Record<string, string | undefined>> }) {
  const { orgId } = await params;
  const query = await searchParams;
  const action = isAction(query.action) ? query.action : undefined;
  const cursor = query.cursor && CURSOR.test(query.cursor) ? query.cursor : undefined;
  const { api, me, organization, isAdmin } = await orgPage(orgId, '/audit');
  const { events, hasMore, cursor: next } = await readOrNotFound(api.organizations.auditEvents({ orgId, action, cursor }));
  const more = new URLSearchParams({ ...(action ? { action } : {}), ...(next ? { cursor: next } : {}) });
  return (
    <OrgFrame me={me} orgId={orgId} name={organization.name} isAdmin={isAdmin} title="audit log">
      <Section id="filter" title="Filter">
        <form method="get">
          <div className={s.row}>
            <Field id="audit-action" label="Action">
              <select id="audit-action" name="action" defaultValue={action ?? ''}>
                <option value="">Every action</option>
                {AUDIT_ACTIONS.map((a) => (
                  <option key={a} value={a}>
                    {a}
                  </option>
                ))}
              </select>
            </Field>
            <button className={s.button} type="submit">
              Show
            </button>
          </div>
        </form>
      </Section>
      <Section id="events" title={cursor ? 'Older events' : 'Latest events'}>
        {events.length === 0 ? (
          <p className={s.muted}>No events{action ? ` for ${action}` : ''}.</p>
        ) : (
          <table className={s.table} tabIndex={0}>
            <caption className="sr-only">Audit events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">From</th>
                <th scope="col">Changes</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td><Time value={e.occurredAt} /></td>
                  <td>
                    <code className={s.code}>{e.action}</code>
                  </td>
                  <td>
                    {e.actor.type}
                    {e.actor.email ? `: ${e.actor.email}` : e.actor.id ? `: ${e.actor.id}` : ''}
                  </td>
                  <td>
                    {e.target.type}
                    {e.target.id ? ` ${e.target.id}` : ''}
                  </td>
                  <td>{e.ip ?? '—'}</td>
                  <td>
                    {e.changes ? (
                      <details>
                        <summary>Before and after</summary>
                        <pre className={s.code}>{JSON.stringify(e.changes, null, 2)}</pre>
                      </details>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {hasMore && (
          <p>
            <Link href={`/organizations/${orgId}/audit?${more.toString()}`}>Older events</Link>
          </p>
        )}
      </Section>
    </OrgFrame>
  );
}
