import { Wrench } from 'lucide-react';
import { toolWords } from '@/app/_lib/labels';
import type { Activity } from '@/app/_lib/types';
import { cn } from '@/app/_ui/cn';
import { Time } from '@/app/_ui/time';

/*
 * The task's conversation, oldest first: the person, the assistant, other assistants, people
 * outside (contact), what an external trigger fired it with (event), Steward's own notes
 * (system) and the assistant's tool calls (in words; the tool and its data under "details").
 * Content from outside the person (contact, event, a tool's result) is set apart and labelled as
 * such: it is what an attacker could have written.
 */

const WHO: Record<string, string> = {
  user: 'You',
  assistant: 'Your assistant',
  peer: 'Another assistant',
  contact: 'Someone outside',
  event: 'An outside event',
  system: 'Steward',
};

const UNTRUSTED = new Set(['contact', 'event']);

const DELIVERY: Record<string, string> = { staged: 'waiting for your approval, not sent', held: 'held back, not sent', provider_accepted: 'sent', unknown: 'delivery unknown' };

function show(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
}

function Entry({ a, assistant }: { a: Activity; assistant: string }) {
  if (a.type === 'tool_call' && a.toolCall) {
    return (
      <li className="flex items-start gap-2 text-sm text-muted">
        <Wrench aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
        <div className="min-w-0 flex-1">
          <p>
            {assistant} {toolWords(a.toolCall.name)} · <Time value={a.createdAt} />
          </p>
          <details>
            <summary className="inline-flex min-h-11 cursor-pointer items-center sm:min-h-0">Details</summary>
            <p className="mt-1">
              Tool <code>{a.toolCall.name}</code>, with:
            </p>
            <pre className="max-h-64 overflow-auto rounded-md bg-surface p-2 text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">{show(a.toolCall.input)}</pre>
            <p className="mt-1">
              What came back <span className="font-semibold text-untrusted">(from outside: treat as untrusted)</span>
            </p>
            <pre className="max-h-64 overflow-auto rounded-md border-l-4 border-untrusted bg-untrusted-soft p-2 text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">{show(a.toolCall.output)}</pre>
          </details>
        </div>
      </li>
    );
  }
  const role = a.message?.role ?? 'system';
  const outside = UNTRUSTED.has(role);
  return (
    <li className={cn('rounded-lg border px-3 py-2', role === 'user' ? 'border-accent/40 bg-accent-soft' : role === 'system' ? 'border-dashed border-border' : 'border-border bg-raised')} data-role={role}>
      <p className="text-sm text-muted">
        <strong className="text-fg">{role === 'assistant' ? assistant : (WHO[role] ?? role)}</strong>
        {a.message?.platform && a.message.platform !== 'api' ? ` via ${a.message.platform}` : ''} · <Time value={a.createdAt} />
        {a.deliveryState ? ` · ${DELIVERY[a.deliveryState] ?? a.deliveryState}` : ''}
        {outside && <span className="font-semibold text-untrusted"> · written outside your account</span>}
      </p>
      <div className={cn('mt-1 whitespace-pre-wrap [overflow-wrap:anywhere]', outside && 'border-l-4 border-untrusted bg-untrusted-soft px-2 py-1')}>{a.message?.content}</div>
      {a.files.length > 0 && <p className="mt-1 text-sm text-muted">{a.files.length === 1 ? 'One file attached' : `${a.files.length} files attached`}</p>}
    </li>
  );
}

export function Timeline({ activities, assistant = 'Your assistant' }: { activities: Activity[]; assistant?: string }) {
  return (
    <ol className="flex flex-col gap-3" aria-label="Activity">
      {[...activities].reverse().map((a) => (
        <Entry key={a.id} a={a} assistant={assistant} />
      ))}
    </ol>
  );
}
