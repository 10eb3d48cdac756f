import { AlertTriangle, Inbox, type LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { cn } from './cn';

/** What a list says when it has nothing: what would appear here, and how it gets there. */
export function Empty({ title, children, icon: Icon = Inbox, action, className }: { title: string; children?: ReactNode; icon?: LucideIcon; action?: ReactNode; className?: string }) {
  return (
    <div className={cn('flex flex-col items-center gap-2 rounded-lg border border-dashed border-strong/50 px-6 py-10 text-center', className)}>
      <Icon aria-hidden="true" className="size-7 text-muted" />
      <p className="font-semibold">{title}</p>
      {children && <div className="max-w-prose text-sm text-muted">{children}</div>}
      {action && <div className="mt-2">{action}</div>}
    </div>
  );
}

/** A failure the person should see, with what they can do about it. */
export function Problem({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div role="alert" className={cn('my-3 flex gap-3 rounded-lg border border-danger/60 bg-danger-soft px-4 py-3 text-fg', className)}>
      <AlertTriangle aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-danger" />
      <div className="min-w-0">{children}</div>
    </div>
  );
}

/** A note that asks for care (held, outside content, a limit reached). */
export function Notice({ children, tone = 'warn', className }: { children: ReactNode; tone?: 'warn' | 'untrusted' | 'info'; className?: string }) {
  const tones = { warn: 'border-warn-border bg-warn-soft', untrusted: 'border-untrusted bg-untrusted-soft', info: 'border-accent bg-accent-soft' };
  return (
    <div role="note" className={cn('my-2 rounded-r-md border-l-4 px-3 py-2 text-sm', tones[tone], className)}>
      {children}
    </div>
  );
}

/** A placeholder while something loads (announced once, politely). */
export function Loading({ label = 'Loading…', className }: { label?: string; className?: string }) {
  return (
    <div className={cn('flex items-center gap-2 py-4 text-muted', className)} role="status" aria-live="polite">
      <span className="size-4 animate-spin rounded-full border-2 border-border border-t-accent" aria-hidden="true" />
      {label}
    </div>
  );
}

/** Grey bars where rows will be (a page's loading.tsx). */
export function Skeleton({ rows = 6, label = 'Loading…' }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-live="polite" className="flex flex-col gap-2 py-2">
      <span className="sr-only">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        <span key={i} aria-hidden="true" className="block h-10 animate-pulse rounded-md bg-surface" />
      ))}
    </div>
  );
}

export type Tone = 'plain' | 'warn' | 'danger' | 'ok' | 'accent';
const TONE: Record<Tone, string> = {
  plain: 'border-border bg-surface text-fg',
  warn: 'border-warn-border/60 bg-warn-soft text-warn',
  danger: 'border-danger/50 bg-danger-soft text-danger',
  ok: 'border-ok/50 bg-ok-soft text-ok',
  accent: 'border-accent/40 bg-accent-soft text-accent',
};

/** A small label for a status or a kind. */
export function Badge({ children, tone = 'plain', className }: { children: ReactNode; tone?: Tone; className?: string }) {
  return <span className={cn('inline-flex items-center gap-1 rounded-full border px-2 text-xs leading-5 font-medium whitespace-nowrap', TONE[tone], className)}>{children}</span>;
}

/** A keyboard key, as shortcuts are shown. */
export function Kbd({ children }: { children: ReactNode }) {
  return <kbd className="inline-flex min-w-5 items-center justify-center rounded-sm border border-border bg-surface px-1 text-xs text-muted">{children}</kbd>;
}
