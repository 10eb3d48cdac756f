import type { ReactNode } from 'react';

/** A console page's heading: its one h1, a line under it, and actions on its right. */
export function PageHead({ title, description, actions }: { title: ReactNode; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h1 className="[overflow-wrap:anywhere]">{title}</h1>
        {description && <div className="mt-1 max-w-prose text-muted">{description}</div>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}
