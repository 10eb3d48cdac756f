import type { ReactNode } from 'react';
import { cn } from './cn';

/** A labelled control: every input in the hosted app has a visible label tied to it, a hint and an error below it. */
export function Field({ id, label, children, hint, error, className }: { id: string; label: ReactNode; children: ReactNode; hint?: ReactNode; error?: string | null; className?: string }) {
  return (
    <div className={cn('flex min-w-0 flex-col gap-1.5', className)}>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children}
      {hint && (
        <small id={`${id}-hint`} className="text-sm text-muted">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} role="alert" className="text-sm text-danger">
          {error}
        </small>
      )}
    </div>
  );
}

/**
 * One titled part of a page (a settings group, a list with its heading): a heading, an optional
 * line under it and actions on its right, the content in a quiet panel.
 */
export function Section({ id, title, description, actions, children, className, bare }: { id: string; title: ReactNode; description?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; bare?: boolean }) {
  return (
    <section aria-labelledby={id} className={cn('my-6 first:mt-2', className)}>
      <div className="mb-3 flex flex-wrap items-end justify-between gap-2">
        <div className="min-w-0">
          <h2 id={id}>{title}</h2>
          {description && <p className="text-sm text-muted">{description}</p>}
        </div>
        {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
      </div>
      {bare ? children : <div className="rounded-lg border border-border bg-raised p-4 sm:p-5">{children}</div>}
    </section>
  );
}

/** A row of fields and their button, wrapping on a phone. */
export function FormRow({ children, className }: { children: ReactNode; className?: string }) {
  return <div className={cn('flex flex-wrap items-end gap-3 [&>*]:min-w-[min(14rem,100%)] [&>*]:flex-1 [&>button]:flex-none [&>button]:min-w-0', className)}>{children}</div>;
}
