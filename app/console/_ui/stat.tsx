import Link from 'next/link';
import type { ReactNode } from 'react';
import { Card } from '@/app/_ui/list';

/** One figure of the overview: what it counts, the number, and an optional note or link. */
export function Stat({ label, value, note, href }: { label: string; value: ReactNode; note?: ReactNode; href?: string }) {
  return (
    <Card className="p-4 sm:p-4">
      <p className="text-sm text-muted">{href ? <Link href={href}>{label}</Link> : label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums">{value}</p>
      {note && <p className="mt-1 text-xs text-muted">{note}</p>}
    </Card>
  );
}

/** Credits as people read them: up to two decimals, thousands grouped. */
export const credits = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
