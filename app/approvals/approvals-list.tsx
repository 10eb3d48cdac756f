'use client';
import { useEffect, useState, type ReactNode } from 'react';
import { CartCard } from './cart-card';
import type { Cart } from './types';

/**
 * The approval cards of the page. The page re-reads its list when something changes (live), and
 * a cart the person just decided leaves that list: its card stays where it was, following its
 * cart to the outcome ("sent", "cancelled"), until the page is left. New carts join below.
 */
export function ApprovalsList({ carts, children }: { carts: Cart[]; children: ReactNode }) {
  const [shown, setShown] = useState(carts);
  useEffect(() => {
    setShown((prev) => {
      const had = new Set(prev.map((c) => c.id));
      const added = carts.filter((c) => !had.has(c.id));
      return added.length ? [...prev, ...added] : prev;
    });
  }, [carts]);
  // Nothing staged and nothing decided here: the page's empty state (children).
  if (!shown.length) return <>{children}</>;
  return (
    <div className="flex flex-col gap-4">
      {shown.map((c) => (
        <CartCard key={c.id} initial={c} />
      ))}
    </div>
  );
}
