import Link from 'next/link';
import type { ReactNode } from 'react';
import { cn } from './cn';

/*
 * Compact lists (a row ~44 px, as Linear's): <RowList label="Tasks"> of <Row> items. A row has
 * a leading mark (icon, avatar), a title (a link when `href`), a line of meta under or beside it,
 * and trailing actions that stay in view. A linked title covers the whole row (one target a thumb
 * can hit); the trailing actions sit above it.
 */
export function RowList({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <ul aria-label={label} className={cn('divide-y divide-border overflow-hidden rounded-lg border border-border bg-raised', className)}>
      {children}
    </ul>
  );
}

export function Row({
  title,
  href,
  lead,
  meta,
  trail,
  children,
  selected,
  className,
  titleAs: TitleTag = 'span',
  ...rest
}: {
  title: ReactNode;
  href?: string;
  lead?: ReactNode;
  meta?: ReactNode;
  trail?: ReactNode;
  children?: ReactNode;
  selected?: boolean;
  className?: string;
  titleAs?: 'span' | 'h2' | 'h3';
} & Omit<React.LiHTMLAttributes<HTMLLIElement>, 'title'>) {
  return (
    <li className={cn('group relative flex min-h-11 items-center gap-3 px-3 py-2 sm:px-4', selected && 'bg-accent-soft', className)} {...rest}>
      {lead && <span className="flex shrink-0 items-center text-muted [&_svg]:size-4">{lead}</span>}
      <div className="min-w-0 flex-1">
        <TitleTag className="block truncate text-base font-medium">
          {href ? (
            <Link href={href} className="text-fg no-underline after:absolute after:inset-0 after:content-[''] hover:underline focus-visible:outline-offset-[-2px]">
              {title}
            </Link>
          ) : (
            title
          )}
        </TitleTag>
        {meta && <div className="flex min-w-0 flex-wrap items-center gap-x-2 text-sm text-muted">{meta}</div>}
        {children}
      </div>
      {trail && <div className="relative z-10 flex shrink-0 items-center gap-2">{trail}</div>}
    </li>
  );
}

/** Label / value pairs (a record's fields). */
export function Fields({ rows, className }: { rows: Array<[ReactNode, ReactNode]>; className?: string }) {
  return (
    <dl className={cn('grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[max-content_1fr]', className)}>
      {rows.map(([k, v], i) => (
        <div key={i} className="contents">
          <dt className="text-sm font-medium text-muted">{k}</dt>
          <dd className="mb-2 min-w-0 [overflow-wrap:anywhere] sm:mb-0">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A table that scrolls inside itself on a narrow screen (never the page). */
export function Table({ label, head, children, className }: { label: string; head: ReactNode[]; children: ReactNode; className?: string }) {
  return (
    // Focusable: a table wider than a phone scrolls inside itself, and the keyboard must reach that scroll too.
    // relative: a visually hidden label inside a cell (position: absolute) stays inside the scroll box instead of widening the page.
    <div tabIndex={0} role="region" aria-label={label} className={cn('relative overflow-x-auto rounded-lg border border-border', className)}>
      <table aria-label={label} className="w-full border-collapse text-sm">
        <thead className="bg-surface text-left text-xs font-semibold text-muted">
          <tr>
            {head.map((h, i) => (
              <th key={i} scope="col" className="px-3 py-2 whitespace-nowrap">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-border [&_td]:px-3 [&_td]:py-2 [&_td]:align-middle">{children}</tbody>
      </table>
    </div>
  );
}

/** A bordered block (a record's detail, a form group). */
export function Card({ children, className, ...rest }: React.HTMLAttributes<HTMLDivElement>) {
  return (
    <div className={cn('rounded-lg border border-border bg-raised p-4 sm:p-5', className)} {...rest}>
      {children}
    </div>
  );
}
