import type { TaintSource } from '@/app/_lib/types';
import ui from './ui.module.css';

const SOURCE: Record<TaintSource['kind'], string> = { email: 'email from', web: 'web page', file: 'file', mcp: 'skill tool', message: 'message from', trigger: 'trigger' };

/** "email from x, web page y": where outside content came from. References are text from outside: shown as text, never links. */
export const sourcesText = (sources: TaintSource[]) => sources.map((s) => `${SOURCE[s.kind] ?? s.kind} ${s.ref}`).join(', ');

/**
 * A task or cart that read content from outside the person: what it sends to anyone else waits
 * for their approval, whatever the autonomy settings say. `held` words it for a held dispatch.
 */
export function TaintNote({ sources, held = false }: { sources: TaintSource[]; held?: boolean }) {
  return (
    <div className={ui.held} role="note">
      <p>
        <strong>{held ? 'Held because the task read content from outside' : 'This task read content from outside'}</strong>
        {sources.length ? `: ${sourcesText(sources)}.` : '.'} {held ? 'Check it says what you want before approving.' : 'What it sends to anyone else waits for your approval.'}
      </p>
    </div>
  );
}
