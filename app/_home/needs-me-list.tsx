'use client';
import { useState } from 'react';
import { NEEDS_ME_EVENT, NEEDS_ME_POLL_MS } from '@/app/_lib/live';
import { trpc } from '@/app/_lib/trpc-client';
import type { NeedsMeItem } from '@/app/_lib/types';
import { usePolling } from '@/app/_lib/use-polling';
import { Empty } from '@/app/_ui/states';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';
import { CartItem, HandoffItem, ProposalItem, QuestionItem, StuckItem } from './items';

const PAGE = 50;

function Item({ item, done }: { item: NeedsMeItem; done: () => void }) {
  switch (item.kind) {
    case 'cart':
      return <CartItem item={item} done={done} />;
    case 'question':
      return <QuestionItem item={item} done={done} />;
    case 'proposal':
      return <ProposalItem item={item} done={done} />;
    case 'stuck':
      return <StuckItem item={item} done={done} />;
    case 'handoff':
      return <HandoffItem item={item} done={done} />;
  }
}

/**
 * "What needs me": one list, newest first, read again every NEEDS_ME_POLL_MS while the page is
 * visible and after each action; every item acts in place. The navigation's count follows.
 */
export function NeedsMeList({ initial, total: initialTotal }: { initial: NeedsMeItem[]; total: number }) {
  const [items, setItems] = useState(initial);
  const [total, setTotal] = useState(initialTotal);
  const [limit, setLimit] = useState(PAGE);
  const read = async (n = limit) => {
    const fresh = await trpc.inbox.list.query({ limit: n });
    setItems(fresh.items);
    setTotal(fresh.total);
    window.dispatchEvent(new CustomEvent(NEEDS_ME_EVENT, { detail: fresh.total }));
  };
  usePolling(() => read(), NEEDS_ME_POLL_MS);
  const done = () => void read().catch(() => undefined);
  return (
    <section aria-labelledby="needs-me-title">
      <h2 id="needs-me-title">
        What needs you <span className={ui.muted}>({total})</span>
      </h2>
      {items.length === 0 ? (
        <Empty title="Nothing needs you right now.">
          <p>Questions from your assistants, tasks they propose, messages waiting for your approval and browser handoffs appear here as they come.</p>
        </Empty>
      ) : (
        <ul className={ui.list} aria-label="What needs you">
          {items.map((item) => (
            <li key={item.key} className={ui.item} data-kind={item.kind}>
              <Item item={item} done={done} />
            </li>
          ))}
        </ul>
      )}
      {items.length < total && (
        <p>
          <button
            className={s.secondary}
            type="button"
            onClick={() => {
              setLimit(limit + PAGE);
              void read(limit + PAGE);
            }}
          >
            Show more ({total - items.length} not shown)
          </button>
        </p>
      )}
    </section>
  );
}
