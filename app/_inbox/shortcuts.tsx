'use client';
import { Dialog } from '@/app/_ui/dialog';
import { Kbd } from '@/app/_ui/states';

export const SHORTCUTS: Array<[string[], string]> = [
  [['j', '↓'], 'Next item'],
  [['k', '↑'], 'Previous item'],
  [['Enter', 'o'], 'Open the item'],
  [['a'], 'Approve (or resume)'],
  [['e'], 'Edit the text, or answer'],
  [['r'], 'Reject: cancel or decline'],
  [['x'], 'Select for approving together'],
  [['?'], 'Show these shortcuts'],
];

/** The inbox's keyboard shortcuts, listed (opened with `?`). */
export function ShortcutsHelp({ open, onOpenChange }: { open: boolean; onOpenChange: (o: boolean) => void }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Keyboard shortcuts" description="In the inbox and on the home page, when no text box has focus.">
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={what} className="contents">
            <dt className="flex gap-1">
              {keys.map((k) => (
                <Kbd key={k}>{k}</Kbd>
              ))}
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
