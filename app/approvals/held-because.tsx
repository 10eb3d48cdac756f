import { ShieldAlert } from 'lucide-react';
import type { Dispatch } from './types';

/*
 * Why a dispatch waits for the person whatever their autonomy settings say: the task read
 * content from outside (an email, a web page, a file...), which may have steered what the
 * assistant wrote. Shown beside the content, with every source, so the person checks it knowing
 * where the words may have come from. The references are text from outside: shown as text, never
 * as links.
 */

const SOURCE: Record<NonNullable<Dispatch['heldBecause']>['sources'][number]['kind'], string> = {
  email: 'Email from',
  web: 'Web page',
  file: 'File',
  mcp: 'Skill tool',
  message: 'Message from',
  trigger: 'Trigger',
};

export function HeldBecause({ held, headingId }: { held: Dispatch['heldBecause']; headingId: string }) {
  if (!held || held.kind !== 'untrusted_input') return null;
  return (
    <div className="my-2 rounded-r-md border-l-4 border-warn-border bg-warn-soft px-3 py-2 text-sm" role="note" aria-labelledby={headingId}>
      <p id={headingId} className="flex gap-2">
        <ShieldAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-warn" />
        <span>
          <strong>Held for your approval:</strong> the task read content from outside, which may have shaped this. Check it says what you want before approving.
        </span>
      </p>
      {held.sources.length > 0 && (
        <ul aria-label="What the task read" className="mt-1 ml-6 list-disc">
          {held.sources.map((s, i) => (
            <li key={`${s.kind}-${i}`}>
              {SOURCE[s.kind] ?? s.kind} <span className="font-mono text-xs [overflow-wrap:anywhere]">{s.ref}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
