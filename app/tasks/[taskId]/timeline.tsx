import { when } from '@/app/_lib/labels';
import type { Activity } from '@/app/_lib/types';
import ui from '@/app/_ui/ui.module.css';
import css from './task.module.css';

/*
 * The task's conversation, oldest first: the person, the assistant, other assistants, people
 * outside (contact), what an external trigger fired it with (event), Steward's own notes
 * (system) and the assistant's tool calls. Content from outside the person (contact, event, a
 * tool's result) is set apart and labelled as such: it is what an attacker could have written.
 */

const WHO: Record<string, string> = {
  user: 'You',
  assistant: 'Assistant',
  peer: 'Another assistant',
  contact: 'Contact (from outside)',
  event: 'Event (from outside)',
  system: 'Steward',
};

const UNTRUSTED = new Set(['contact', 'event']);

const DELIVERY: Record<string, string> = { staged: 'staged for approval, not sent', held: 'held back, not sent', provider_accepted: 'sent', unknown: 'delivery unknown' };

function show(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
}

function Entry({ a }: { a: Activity }) {
  if (a.type === 'tool_call' && a.toolCall) {
    return (
      <li className={`${css.entry} ${css.tool}`}>
        <p className={ui.meta}>
          Assistant used <strong>{a.toolCall.name}</strong> · {when(a.createdAt)}
        </p>
        <details>
          <summary>What it sent and got back</summary>
          <p className={ui.meta}>Input</p>
          <pre className={`${ui.pre} ${css.code}`}>{show(a.toolCall.input)}</pre>
          <p className={ui.meta}>
            Result <span className={css.outside}>(from outside: treat as untrusted)</span>
          </p>
          <pre className={`${ui.pre} ${css.code} ${ui.untrusted}`}>{show(a.toolCall.output)}</pre>
        </details>
      </li>
    );
  }
  const role = a.message?.role ?? 'system';
  const outside = UNTRUSTED.has(role);
  return (
    <li className={`${css.entry} ${css[`role_${role}`] ?? ''}`} data-role={role}>
      <p className={ui.meta}>
        <strong>{WHO[role] ?? role}</strong>
        {a.message?.platform && a.message.platform !== 'api' ? ` via ${a.message.platform}` : ''} · {when(a.createdAt)}
        {a.deliveryState ? ` · ${DELIVERY[a.deliveryState] ?? a.deliveryState}` : ''}
        {outside && <span className={css.outside}> · untrusted content: written outside your account</span>}
      </p>
      <div className={`${ui.pre} ${outside ? ui.untrusted : ''}`}>{a.message?.content}</div>
      {a.files.length > 0 && <p className={ui.meta}>{a.files.length === 1 ? 'One file attached' : `${a.files.length} files attached`}</p>}
    </li>
  );
}

export function Timeline({ activities }: { activities: Activity[] }) {
  return (
    <ol className={css.timeline} aria-label="Activity">
      {[...activities].reverse().map((a) => (
        <Entry key={a.id} a={a} />
      ))}
    </ol>
  );
}
