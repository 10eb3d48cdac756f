import type { ReactNode } from 'react';
import { Calendar, Mail, MessageSquare, Phone, Puzzle } from 'lucide-react';
import { HeldBecause } from './held-because';
import type { Dispatch } from './types';

/*
 * One staged action exactly as it will be sent: every field the approval covers (the cart's
 * contentHash is computed over the same fields), the body with its line breaks and spaces kept.
 * No hooks: the approvals page, the inbox panel and the reject page all render it.
 */

export const KIND: Record<Dispatch['type'], string> = { email: 'Email', message: 'Message', calendar_event: 'Calendar invitation', skill_action: 'Skill action', call: 'Phone call' };
export const KIND_ICON: Record<Dispatch['type'], ReactNode> = {
  email: <Mail aria-hidden="true" />,
  message: <MessageSquare aria-hidden="true" />,
  calendar_event: <Calendar aria-hidden="true" />,
  skill_action: <Puzzle aria-hidden="true" />,
  call: <Phone aria-hidden="true" />,
};

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

/** "Email to bob@example.com", "Message on Slack", "Phone call to +33…": a dispatch named by what it is and who gets it. */
export function dispatchTitle(d: Dispatch): string {
  const to = d.to.length ? ` to ${d.to.length > 2 ? `${d.to.slice(0, 2).join(', ')} and ${d.to.length - 2} more` : d.to.join(', ')}` : '';
  if (d.type === 'message') return `Message${to || ` on ${d.platform}`}`;
  if (d.type === 'calendar_event') return `Calendar invitation${text(d.payload?.title) ? `: ${text(d.payload?.title)}` : ''}`;
  return `${KIND[d.type]}${to}`;
}

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

export function DispatchView({ dispatch: d, headingId, showDelivery = false, headingLevel = 3 }: { dispatch: Dispatch; headingId: string; showDelivery?: boolean; headingLevel?: 3 | 4 }) {
  const rows = rowsOf(d);
  if (d.files.length)
    rows.push([
      'Attachments',
      <ul className="flex flex-col">
        {d.files.map((f) => (
          <li key={f.fileId}>
            {f.filename} <span className="text-muted">({size(f.size)})</span>
          </li>
        ))}
      </ul>,
    ]);
  if (d.validUntil || d.evergreen) rows.push(['Valid', d.evergreen ? 'always' : `until ${d.validUntil}`]);
  if (showDelivery) rows.push(['Delivery', DELIVERY[d.deliveryState]]);
  const H = headingLevel === 3 ? 'h3' : 'h4';
  return (
    <>
      <H id={headingId} className="flex items-center gap-2 text-base font-semibold [&_svg]:size-4 [&_svg]:text-muted">
        {KIND_ICON[d.type]}
        <span className="min-w-0 [overflow-wrap:anywhere]">
          {dispatchTitle(d)}
          {d.editedByUser ? <span className="font-normal text-muted"> (your edit)</span> : null}
        </span>
      </H>
      <HeldBecause held={d.heldBecause} headingId={`${headingId}-held`} />
      <dl className="my-2 grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-muted">{label}</dt>
            <dd className="[overflow-wrap:anywhere]">{value}</dd>
          </div>
        ))}
      </dl>
      {d.body !== null && (
        <div>
          <p className="sr-only">{d.type === 'calendar_event' ? 'Description' : d.type === 'call' ? 'What the assistant says' : 'Body'}</p>
          <div className="rounded-md border border-border bg-surface px-3 py-2 whitespace-pre-wrap [overflow-wrap:anywhere]" data-testid="dispatch-body">
            {d.body}
          </div>
        </div>
      )}
      {d.description && <p className="mt-2 text-sm text-muted">Note from your assistant: {d.description}</p>}
      {d.type === 'skill_action' && d.payload && (
        <details className="mt-2 text-sm">
          <summary className="cursor-pointer text-muted">What the skill receives</summary>
          <pre className="mt-1 overflow-x-auto rounded-md bg-surface p-2 text-xs whitespace-pre-wrap">{JSON.stringify(d.payload, null, 2)}</pre>
        </details>
      )}
    </>
  );
}
