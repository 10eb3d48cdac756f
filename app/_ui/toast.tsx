'use client';
import * as Toast from '@radix-ui/react-toast';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import ui from './ui.module.css';

type Note = { id: number; kind: 'ok' | 'error'; text: string };
const Notify = createContext<(kind: Note['kind'], text: string) => void>(() => {});

let seq = 0;

/**
 * Outcome notices of the person's actions ("Approved", "Could not send: ..."). Radix's Toast
 * announces each in a live region, pauses its timer on hover and focus, and is reachable with F8;
 * errors stay until dismissed.
 */
export function Toaster({ children }: { children: ReactNode }) {
  const [notes, setNotes] = useState<Note[]>([]);
  const notify = useCallback((kind: Note['kind'], text: string) => setNotes((n) => [...n.slice(-3), { id: ++seq, kind, text }]), []);
  return (
    <Toast.Provider swipeDirection="right" duration={6000} label="Notifications">
      <Notify.Provider value={notify}>{children}</Notify.Provider>
      {notes.map((n) => (
        <Toast.Root
          key={n.id}
          className={`${ui.toast} ${n.kind === 'error' ? ui.toastError : ''}`}
          type={n.kind === 'error' ? 'foreground' : 'background'}
          duration={n.kind === 'error' ? Infinity : 6000}
          onOpenChange={(open) => {
            if (!open) setNotes((all) => all.filter((x) => x.id !== n.id));
          }}
        >
          <Toast.Title className={ui.toastTitle}>{n.text}</Toast.Title>
          <Toast.Close className={ui.toastClose} aria-label="Dismiss">
            ×
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport className={ui.toasts} />
    </Toast.Provider>
  );
}

export const useNotify = () => useContext(Notify);
