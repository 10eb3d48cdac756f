import type { ReactNode } from 'react';
import css from './approvals.module.css';
import { HeldBecause } from './held-because';
import type { Dispatch } from './types';

/*
 * One staged action exactly as it will be sent: every field the approval covers (the cart's
 * contentHash is computed over the same fields), the body with its line breaks and spaces kept.
 * No hooks: the approvals page and the reject page both render it.
 */

const KIND: Record<Dispatch['type'], string> = { email: 'Email', message: 'Message', calendar_event: 'Calendar invitation', skill_action: 'Skill action', call: 'Phone call' };

const DELIVERY: Record<Dispatch['deliveryState'], string> = {
  staged: 'staged, not sent',
  held: 'released, held for undo',
  provider_accepted: 'sent (accepted by the mail or message service)',
  unknown: 'unknown: no confirmed delivery record',
  failed: 'failed: not sent',
  undone: 'undone: not sent',
};

const recipients = (xs: string[]) => (xs.length ? xs.join(', ') : 'nobody');

function size(bytes: number) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);

/** A calendar event's own fields (the payload the staging tool wrote), read defensively. */
function eventFields(d: Dispatch): Array<[string, ReactNode]> {
  const p = d.payload ?? {};
  const attendees = Array.isArray(p.attendees) ? p.attendees.map((a) => text(a) ?? JSON.stringify(a)) : d.to;
  const rows: Array<[string, ReactNode]> = [
    ['Title', text(p.title) ?? text(p.summary) ?? d.subject ?? '(no title)'],
    ['Starts', text(p.start) ?? '(not set)'],
    ['Ends', text(p.end) ?? '(not set)'],
    ['Attendees', recipients(attendees)],
  ];
  const location = text(p.location);
  if (location) rows.push(['Location', location]);
  return rows;
}

function rowsOf(d: Dispatch): Array<[string, ReactNode]> {
  const rows: Array<[string, ReactNode]> = [];
  if (d.type === 'message') rows.push(['Channel', d.platform]);
  rows.push(['From', d.from ?? 'decided by the channel']);
  if (d.type === 'calendar_event') return [...rows, ...eventFields(d)];
  if (d.type !== 'skill_action' || d.to.length) rows.push(['To', recipients(d.to)]);
  if (d.cc.length) rows.push(['Cc', recipients(d.cc)]);
  if (d.bcc.length) rows.push(['Bcc', recipients(d.bcc)]);
  if (d.type === 'email') rows.push(['Subject', d.subject ?? '(no subject)']);
  if (d.type === 'call') rows.push(['Purpose', text(d.payload?.purpose) ?? d.description ?? '(not given)'], ['Speaks as', d.actionType === 'voice_call_as_user' ? 'you' : 'the assistant']);
  return rows;
}

export function DispatchView({ dispatch: d, headingId, showDelivery = false }: { dispatch: Dispatch; headingId: string; showDelivery?: boolean }) {
  const rows = rowsOf(d);
  if (d.body !== null) {
    rows.push([
      d.type === 'calendar_event' ? 'Description' : d.type === 'call' ? 'What the assistant says' : 'Body',
      <div className={css.body} data-testid="dispatch-body">
        {d.body}
      </div>,
    ]);
  }
  if (d.type === 'skill_action' && d.payload) rows.push(['Details', <pre className={css.payload}>{JSON.stringify(d.payload, null, 2)}</pre>]);
  rows.push([
    'Attachments',
    d.files.length ? (
      <ul>
        {d.files.map((f) => (
          <li key={f.fileId}>
            {f.filename} ({f.mimeType}, {size(f.size)})
          </li>
        ))}
      </ul>
    ) : (
      'none'
    ),
  ]);
  if (d.validUntil || d.evergreen) rows.push(['Valid', d.evergreen ? 'always (evergreen)' : `until ${d.validUntil}`]);
  if (showDelivery) rows.push(['Delivery', DELIVERY[d.deliveryState]]);
  return (
    <>
      <h3 id={headingId}>
        {KIND[d.type]} {d.index + 1}
        {d.editedByUser ? ' (your edit)' : ''}
      </h3>
      <HeldBecause held={d.heldBecause} headingId={`${headingId}-held`} />
      {d.description && <p>Assistant’s note: {d.description}</p>}
      <dl className={css.fields}>
        {rows.map(([label, value]) => (
          <div key={label} className={css.pair}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}
