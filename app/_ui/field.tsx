import type { ReactNode } from 'react';
import s from './hosted.module.css';

/** A labelled control: every input in the hosted app has a visible label tied to it. */
export function Field({ id, label, children, hint }: { id: string; label: string; children: ReactNode; hint?: string }) {
  return (
    <div className={s.field}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && (
        <small id={`${id}-hint`} className={s.muted}>
          {hint}
        </small>
      )}
    </div>
  );
}

export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className={s.section}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
