import type { ReactNode } from 'react';
import ui from './ui.module.css';

/** What a list says when it has nothing: what would appear here, and how it gets there. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className={ui.empty}>
      <p className={ui.emptyTitle}>{title}</p>
      {children && <div className={ui.muted}>{children}</div>}
    </div>
  );
}

/** A failure the person should see, with what they can do about it. */
export function Problem({ children }: { children: ReactNode }) {
  return (
    <div role="alert" className={ui.problem}>
      {children}
    </div>
  );
}

/** A placeholder while something loads (announced once, politely). */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className={ui.loading} role="status" aria-live="polite">
      <span className={ui.spinner} aria-hidden="true" />
      {label}
    </div>
  );
}

/** A small label for a status or a kind. */
export function Badge({ children, tone = 'plain' }: { children: ReactNode; tone?: 'plain' | 'warn' | 'danger' | 'ok' | 'accent' }) {
  return <span className={`${ui.badge} ${ui[`badge_${tone}`] ?? ''}`}>{children}</span>;
}
