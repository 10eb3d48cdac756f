'use client';
import { CheckCheck, Keyboard } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { NEEDS_ME_EVENT, useLive } from '@/app/_lib/live';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { NeedsMeItem } from '@/app/_lib/types';
import { useMedia, WIDE } from '@/app/_lib/use-media';
import { Button } from '@/app/_ui/button';
import { cn } from '@/app/_ui/cn';
import { Checkbox } from '@/app/_ui/controls';
import { Dialog, DialogClose, Sheet } from '@/app/_ui/dialog';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { useNotify } from '@/app/_ui/toast';
import { approveItem, openHandoff, rejectItem, rejectWords } from './actions';
import { bulkApprovable, describe } from './describe';
import { ItemDetail } from './item-detail';
import { RowIcon } from './row-icon';
import { INBOX_PAGE } from './page-size';
import { ShortcutsHelp } from './shortcuts';

const PAGE = INBOX_PAGE;

/** A key press meant for a text box, a menu or a dialog is not a shortcut. */
function typing(e: KeyboardEvent): boolean {
  if (e.metaKey || e.ctrlKey || e.altKey) return true;
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  if (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName)) return true;
  return !!t.closest('[role="dialog"],[role="menu"],[role="alertdialog"]');
}

/**
 * What needs the person, once each, most pressing first: compact rows with the content and the
 * main action in view; the selected item in full in a side panel (wide screens) or a sheet
 * (phone). Live: the list reads again as soon as the /live stream says it moved. Keyboard: j/k,
 * Enter, a, e, r, x, ? (ShortcutsHelp). Carts whose content is all the assistant's own can be
 * approved together, each with the hash the person was shown.
 */
export function InboxView({ initial, total: initialTotal, heading = 'What needs you' }: { initial: NeedsMeItem[]; total: number; heading?: string }) {
  const notify = useNotify();
  const wide = useMedia(WIDE);
  const [items, setItems] = useState(initial);
  const [total, setTotal] = useState(initialTotal);
  const [limit, setLimit] = useState(Math.max(PAGE, initial.length));
  const [selectedKey, setSelectedKey] = useState<string | null>(initial[0]?.key ?? null);
  const [sheetOpen, setSheetOpen] = useState(false);
  // The `e` shortcut (or a question's Answer) asks the selected item to open its editor: the request
  // names its item, so an item selected afterwards does not open its editor on arrival.
  const [editRequest, setEditRequest] = useState<{ key: string; n: number } | null>(null);
  const requestEdit = (key: string) => setEditRequest((r) => ({ key, n: (r?.n ?? 0) + 1 }));
  const [checked, setChecked] = useState<Set<string>>(new Set());
  const [help, setHelp] = useState(false);
  const [confirming, setConfirming] = useState<NeedsMeItem | null>(null);
  const [busy, setBusy] = useState(false);
  const rows = useRef(new Map<string, HTMLButtonElement>());

  const read = useCallback(
    async (n = limit) => {
      const fresh = await trpc.inbox.list.query({ limit: n });
      setItems(fresh.items);
      setTotal(fresh.total);
      window.dispatchEvent(new CustomEvent(NEEDS_ME_EVENT, { detail: fresh.total }));
    },
    [limit],
  );
  useLive(['needs'], () => void read().catch(() => undefined));
  const done = useCallback(() => void read().catch(() => undefined), [read]);
  const decidedInDetail = (item: NeedsMeItem) => {
    if (item.kind === 'cart') setKept(item);
    done();
  };

  // A cart decided in the panel or sheet leaves the list, but stays shown there with what came of
  // it (its card reads its own status) until the person moves on: j/k, another row, closing the sheet.
  const [kept, setKept] = useState<NeedsMeItem | null>(null);
  const keptShown = kept !== null && kept.key === selectedKey;
  // The selection follows the list: an item that left is replaced by the one now in its place.
  const index = Math.max(0, items.findIndex((i) => i.key === selectedKey));
  const selected = items.length ? items[Math.min(index, items.length - 1)] : null;
  const shown = keptShown && kept ? (items.find((i) => i.key === kept.key) ?? kept) : selected;
  const lastIndex = useRef(0);
  useEffect(() => {
    if (keptShown) return;
    if (selected && selected.key !== selectedKey) setSelectedKey(items[Math.min(lastIndex.current, items.length - 1)]?.key ?? null);
    else if (selected) lastIndex.current = items.indexOf(selected);
  }, [items, selected, selectedKey, keptShown]);
  useEffect(() => {
    setChecked((c) => new Set([...c].filter((k) => items.some((i) => i.key === k))));
  }, [items]);
  // An edit request ends when its item is no longer the one shown.
  useEffect(() => {
    if (editRequest && shown?.key !== editRequest.key) setEditRequest(null);
  }, [editRequest, shown]);

  const select = (key: string, focus = true) => {
    setKept(null);
    setSelectedKey(key);
    if (focus) rows.current.get(key)?.focus();
  };
  const open = (item: NeedsMeItem) => {
    setKept(null);
    setSelectedKey(item.key);
    if (!wide) setSheetOpen(true);
  };

  const run = async (fn: () => Promise<string | null | void>) => {
    setBusy(true);
    try {
      const said = await fn();
      if (said) notify('ok', said);
      await read();
    } catch (e) {
      notify('error', describeError(e).message);
      await read().catch(() => undefined);
    } finally {
      setBusy(false);
    }
  };
  const primary = (item: NeedsMeItem) => {
    if (item.kind === 'question') {
      open(item);
      requestEdit(item.key);
    } else if (item.kind === 'handoff') void run(() => openHandoff(item));
    else void run(() => approveItem(item));
  };
  const approveChecked = () =>
    run(async () => {
      const chosen = items.filter((i) => checked.has(i.key) && i.kind === 'cart');
      const { results } = await trpc.inbox.approveMany.mutate({ items: chosen.map((i) => (i.kind === 'cart' ? { cartId: i.cart.id, contentHash: i.cart.contentHash } : null)!) });
      setChecked(new Set());
      const failed = results.filter((r) => !r.ok);
      if (failed.length) throw new Error(`${results.length - failed.length} approved; ${failed.length} not: ${failed[0]!.error}`);
      return `Approved ${results.length} ${results.length === 1 ? 'item' : 'items'}: they are being sent.`;
    });

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || typing(e)) return;
      const i = selected ? items.indexOf(selected) : -1;
      const key = e.key;
      if (key === '?') {
        e.preventDefault();
        setHelp(true);
        return;
      }
      if (!items.length) return;
      if (keptShown) {
        // The decided cart is no longer in the list: j/k go on from where it was; nothing else applies to it.
        const at = Math.min(lastIndex.current, items.length - 1);
        if (key === 'j' || key === 'ArrowDown' || key === 'k' || key === 'ArrowUp') {
          e.preventDefault();
          select(items[key === 'j' || key === 'ArrowDown' ? at : Math.max(0, at - 1)]!.key);
        }
        return;
      }
      if (key === 'j' || key === 'ArrowDown') {
        e.preventDefault();
        select(items[Math.min(items.length - 1, i + 1)]!.key);
      } else if (key === 'k' || key === 'ArrowUp') {
        e.preventDefault();
        select(items[Math.max(0, i - 1)]!.key);
      } else if (!selected) return;
      else if (key === 'o' || (key === 'Enter' && (e.target === document.body || e.target === document.documentElement))) {
        e.preventDefault();
        open(selected);
      } else if (key === 'a') {
        e.preventDefault();
        if (selected.kind === 'cart' || selected.kind === 'proposal' || selected.kind === 'stuck') void run(() => approveItem(selected));
      } else if (key === 'e') {
        e.preventDefault();
        open(selected);
        requestEdit(selected.key);
      } else if (key === 'r') {
        e.preventDefault();
        if (rejectWords(selected)) setConfirming(selected);
      } else if (key === 'x' && bulkApprovable(selected)) {
        e.preventDefault();
        setChecked((c) => {
          const n = new Set(c);
          if (n.has(selected.key)) n.delete(selected.key);
          else n.add(selected.key);
          return n;
        });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const approvable = items.filter(bulkApprovable);
  const edited = (next: NeedsMeItem) => setItems((all) => all.map((i) => (i.key === next.key ? next : i)));
  const detail = shown ? <ItemDetail key={shown.key} item={shown} editRequest={editRequest?.key === shown.key ? editRequest.n : 0} done={() => decidedInDetail(shown)} edited={edited} /> : null;
  const reject = confirming ? rejectWords(confirming) : null;

  return (
    <div className={cn(wide && (items.length > 0 || keptShown) && 'grid grid-cols-[minmax(0,1fr)_minmax(24rem,32rem)] items-start gap-6')}>
      <section aria-labelledby="needs-me-title" className="min-w-0">
        <div className="mb-2 flex min-h-11 flex-wrap items-center justify-between gap-2">
          <h2 id="needs-me-title" className="flex items-center gap-2">
            {heading}
            <Badge tone={total ? 'accent' : 'plain'}>
              <span className="tabular">{total}</span>
            </Badge>
          </h2>
          <div className="flex items-center gap-1">
            {checked.size > 0 ? (
              <Button size="sm" disabled={busy} onClick={() => void approveChecked()}>
                <CheckCheck aria-hidden="true" />
                Approve {checked.size} selected
              </Button>
            ) : approvable.length > 1 ? (
              <Button size="sm" variant="ghost" onClick={() => setChecked(new Set(approvable.map((i) => i.key)))}>
                Select all {approvable.length} to approve
              </Button>
            ) : null}
            <Button size="icon" variant="ghost" aria-label="Keyboard shortcuts" className="hidden lg:inline-flex" onClick={() => setHelp(true)}>
              <Keyboard aria-hidden="true" />
            </Button>
          </div>
        </div>
        {items.length === 0 ? (
          <Empty title="Nothing needs you right now." icon={CheckCheck}>
            <p>Questions from your assistants, things they want to send, tasks they propose and browser handoffs appear here as they come.</p>
          </Empty>
        ) : (
          <ul aria-label={heading} className="divide-y divide-border overflow-hidden rounded-lg border border-border bg-raised">
            {items.map((item) => {
              const d = describe(item);
              const on = shown?.key === item.key;
              const canCheck = bulkApprovable(item);
              // One element wherever one does (the icon, the time, the line, the button's name as a label), and a row
              // off screen is not styled or laid out until it nears the screen (content-visibility; its height kept
              // once known): a phone computes style and layout of every row before the inbox's first paint (issue 45).
              return (
                <li key={item.key} data-kind={item.kind} data-selected={on || undefined} className={cn('relative flex items-center gap-2 py-1.5 pr-2 pl-1 [contain-intrinsic-size:auto_3.5rem] [content-visibility:auto] sm:pr-3', on && 'bg-accent-soft/60 shadow-[inset_3px_0_0_var(--accent)]')}>
                  {canCheck ? (
                    <Checkbox
                      className="relative z-10"
                      aria-label={`Select “${d.title}” to approve together`}
                      checked={checked.has(item.key)}
                      onChange={(e) =>
                        setChecked((c) => {
                          const n = new Set(c);
                          if (e.target.checked) n.add(item.key);
                          else n.delete(item.key);
                          return n;
                        })
                      }
                    />
                  ) : (
                    <RowIcon name={d.icon} className="min-w-11 text-muted sm:min-w-8" />
                  )}
                  <div className="min-w-0 flex-1">
                    <h3 className="text-base font-medium">
                      <button
                        type="button"
                        data-inbox-row=""
                        ref={(el) => {
                          if (el) rows.current.set(item.key, el);
                          else rows.current.delete(item.key);
                        }}
                        onClick={() => open(item)}
                        onFocus={() => setSelectedKey(item.key)}
                        className="block w-full min-w-0 truncate rounded-sm py-0.5 text-left text-fg after:absolute after:inset-0 after:content-[''] focus-visible:outline-offset-[-2px]"
                      >
                        {d.title}
                      </button>
                    </h3>
                    <p className="truncate text-sm text-muted">
                      <Badge tone={d.tone} className="mr-2">
                        {d.kind}
                      </Badge>
                      {d.line}
                    </p>
                  </div>
                  {d.when && <Time value={d.when} className="hidden shrink-0 text-sm text-muted tabular sm:inline" />}
                  <Button size="sm" variant={item.kind === 'cart' || item.kind === 'proposal' ? 'primary' : 'secondary'} className="relative z-10" aria-label={`${d.primary} “${d.title}”`} disabled={busy} onClick={() => primary(item)}>
                    {d.primary}
                  </Button>
                </li>
              );
            })}
          </ul>
        )}
        {items.length < total && (
          <p className="mt-3">
            <Button
              variant="secondary"
              onClick={() => {
                setLimit(limit + PAGE);
                void read(limit + PAGE);
              }}
            >
              Show more ({total - items.length} not shown)
            </Button>
          </p>
        )}
        <p className="mt-3 hidden text-sm text-muted lg:block">
          Press <kbd className="font-mono">?</kbd> for keyboard shortcuts.
        </p>
      </section>
      {wide && shown && (
        <aside aria-label="Selected item" className="sticky top-6 max-h-[calc(100dvh-3rem)] overflow-y-auto rounded-lg border border-border bg-raised p-5">
          {detail}
        </aside>
      )}
      {!wide && shown && (
        <Sheet
          open={sheetOpen}
          onOpenChange={(o) => {
            setSheetOpen(o);
            if (!o) setKept(null);
          }}
          title={describe(shown).kind}
        >
          {detail}
        </Sheet>
      )}
      <ShortcutsHelp open={help} onOpenChange={setHelp} />
      <Dialog open={confirming !== null} onOpenChange={(o) => !o && setConfirming(null)} title={reject?.title ?? ''} description={confirming ? `“${describe(confirming).title}”` : undefined}>
        <div className="flex flex-wrap justify-end gap-2">
          <DialogClose asChild>
            <Button variant="secondary">Keep it</Button>
          </DialogClose>
          <Button
            variant="danger"
            autoFocus
            onClick={() => {
              const item = confirming!;
              setConfirming(null);
              void run(() => rejectItem(item));
            }}
          >
            {reject?.button}
          </Button>
        </div>
      </Dialog>
    </div>
  );
}
