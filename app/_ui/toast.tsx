'use client';
import * as Toast from '@radix-ui/react-toast';
import { X } from 'lucide-react';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { cn } from './cn';

type Note = { id: number; kind: 'ok' | 'error'; text: string; action?: { label: string; run: () => void } };
type Notify = (kind: Note['kind'], text: string, action?: Note['action']) => void;
const NotifyContext = createContext<Notify>(() => {});

let seq = 0;

/**
 * Outcome notices of the person's actions ("Approved", "Could not send: ..."), with an optional
 * action ("Undo"). Radix's Toast announces each in a live region, pauses its timer on hover and
 * focus, and is reachable with F8; errors stay until dismissed.
 */
export function Toaster({ children }: { children: ReactNode }) {
  const [notes, setNotes] = useState<Note[]>([]);
  const notify = useCallback<Notify>((kind, text, action) => setNotes((n) => [...n.slice(-3), { id: ++seq, kind, text, action }]), []);
  return (
    <Toast.Provider swipeDirection="right" duration={6000} label="Notifications">
      <NotifyContext.Provider value={notify}>{children}</NotifyContext.Provider>
      {notes.map((n) => (
        <Toast.Root
          key={n.id}
          className={cn('flex items-start justify-between gap-3 rounded-lg border border-l-4 border-border bg-raised px-4 py-3 text-fg shadow-pop', n.kind === 'error' ? 'border-l-danger' : 'border-l-ok')}
          type={n.kind === 'error' ? 'foreground' : 'background'}
          duration={n.kind === 'error' ? Infinity : 6000}
          onOpenChange={(open) => {
            if (!open) setNotes((all) => all.filter((x) => x.id !== n.id));
          }}
        >
          <Toast.Title className="min-w-0 pt-1.5">{n.text}</Toast.Title>
          <div className="flex shrink-0 items-center gap-1">
            {n.action && (
              <Toast.Action altText={n.action.label} className="min-h-11 rounded-md px-3 text-sm font-semibold text-accent hover:bg-accent-soft sm:min-h-9" onClick={n.action.run}>
                {n.action.label}
              </Toast.Action>
            )}
            <Toast.Close className="inline-flex size-11 items-center justify-center rounded-md text-muted hover:bg-surface sm:size-9" aria-label="Dismiss">
              <X aria-hidden="true" className="size-4" />
            </Toast.Close>
          </div>
        </Toast.Root>
      ))}
      <Toast.Viewport className="fixed right-0 bottom-16 z-[60] m-0 flex w-[min(26rem,100vw)] list-none flex-col gap-2 p-4 outline-none sm:bottom-0" />
    </Toast.Provider>
  );
}

export const useNotify = () => useContext(NotifyContext);
