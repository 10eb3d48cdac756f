'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { when } from '@/app/_lib/labels';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { Out } from '@/app/_lib/types';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Input, Textarea } from '@/app/_ui/controls';
import { Field } from '@/app/_ui/field';
import { Badge } from '@/app/_ui/states';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';

type Memory = Out['memories']['list']['memories'][number];

/** Runs one change: its outcome as a notice, the page read again on success. */
function useChange() {
  const router = useRouter();
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const change = async (fn: () => Promise<unknown>, ok: string) => {
    setPending(true);
    try {
      await fn();
      notify('ok', ok);
      router.refresh();
      return true;
    } catch (e) {
      notify('error', describeError(e).message);
      return false;
    } finally {
      setPending(false);
    }
  };
  return { pending, change };
}

/** A search box: the query lives in the URL (?q=), so a search can be linked and reloaded. */
export function SearchForm({ q }: { q: string }) {
  return (
    <form className={s.row} role="search" aria-label="Search memories" action="/memories" method="get">
      <Field id="memory-search" label="Search memories">
        <Input id="memory-search" name="q" type="search" defaultValue={q} maxLength={500} placeholder="a person, a place, a preference…" />
      </Field>
      <button className={s.button} type="submit">
        Search
      </button>
      {q && (
        <Link className={s.secondary} href="/memories">
          Clear
        </Link>
      )}
    </form>
  );
}

/** A structured memory's data as "key: value" lines. */
function DataList({ data }: { data: Record<string, unknown> }) {
  return (
    <dl className={ui.dl}>
      {Object.entries(data).map(([k, v]) => (
        <div key={k} style={{ display: 'contents' }}>
          <dt>{k}</dt>
          <dd>{typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function EditMemory({ m }: { m: Memory }) {
  const { pending, change } = useChange();
  const [open, setOpen] = useState(false);
  const [content, setContent] = useState(m.content ?? '');
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="Change this memory"
      description="Your assistant reads the new words from its next task or chat on."
      trigger={
        <button className={s.secondary} type="button" disabled={pending}>
          Edit<span className="sr-only"> “{m.content}”</span>
        </button>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void change(() => trpc.memories.update.mutate({ memoryId: m.id, change: { content } }), 'Memory changed.').then((ok) => ok && setOpen(false));
        }}
      >
        <Field id={`memory-edit-${m.id}`} label="Memory">
          <Textarea id={`memory-edit-${m.id}`} value={content} required maxLength={100_000} onChange={(e) => setContent(e.target.value)} />
        </Field>
        <div className={ui.actions}>
          <button className={s.button} type="submit" disabled={pending || !content.trim()}>
            Save
          </button>
          <DialogClose asChild>
            <button className={s.secondary} type="button">
              Cancel
            </button>
          </DialogClose>
        </div>
      </form>
    </Dialog>
  );
}

function MemoryItem({ m }: { m: Memory }) {
  const { pending, change } = useChange();
  const label = m.content ?? m.resourceType ?? 'this memory';
  const tags = m.tags.filter((t) => t !== 'general');
  return (
    <li className={ui.item} data-testid="memory">
      <div className={ui.itemHead}>
        <p className={ui.itemTitle}>{m.content ?? <em>{m.resourceType ?? 'Structured memory'}</em>}</p>
        <span className={s.inline}>
          {m.pinned && <Badge tone="accent">Pinned</Badge>}
          {m.scope === 'team' && <Badge>Team</Badge>}
          {m.kind === 'structured' && <Badge>Structured</Badge>}
          {m.isExpired && <Badge tone="warn">Past</Badge>}
        </span>
      </div>
      {m.data && Object.keys(m.data).length > 0 && <DataList data={m.data} />}
      <p className={ui.meta}>
        {m.source === 'system' ? 'Saved by your assistant' : 'Saved by you'}
        {m.canChange ? '' : ' · shared by a teammate'} · {when(m.createdAt)}
        {m.updatedAt !== m.createdAt ? ` · changed ${when(m.updatedAt)}` : ''}
        {m.startDate ? ` · ${m.endDate ? `${when(m.startDate)} to ${when(m.endDate)}` : `from ${when(m.startDate)}`}` : ''}
        {tags.length ? ` · ${tags.join(', ')}` : ''}
      </p>
      {m.canChange && (
        <div className={ui.actions}>
          {m.content !== null && <EditMemory m={m} />}
          <button
            className={s.secondary}
            type="button"
            disabled={pending}
            aria-pressed={m.pinned}
            onClick={() => void change(() => trpc.memories.update.mutate({ memoryId: m.id, change: { pinned: !m.pinned } }), m.pinned ? 'Unpinned.' : 'Pinned: your assistant always sees it.')}
          >
            {m.pinned ? 'Unpin' : 'Pin'}
            <span className="sr-only"> “{label}”</span>
          </button>
          <Dialog
            title="Delete this memory?"
            description="Your assistant will no longer know it. This cannot be undone."
            trigger={
              <button className={s.secondary} type="button" disabled={pending}>
                Delete<span className="sr-only"> “{label}”</span>
              </button>
            }
          >
            <p>{label}</p>
            <div className={ui.actions}>
              <DialogClose asChild>
                <button className={s.danger} type="button" onClick={() => void change(() => trpc.memories.remove.mutate({ memoryId: m.id }), 'Memory deleted.')}>
                  Delete memory
                </button>
              </DialogClose>
              <DialogClose asChild>
                <button className={s.secondary} type="button">
                  Keep it
                </button>
              </DialogClose>
            </div>
          </Dialog>
        </div>
      )}
    </li>
  );
}

export function MemoryList({ memories }: { memories: Memory[] }) {
  return (
    <ul className={ui.list} aria-label="Memories">
      {memories.map((m) => (
        <MemoryItem key={m.id} m={m} />
      ))}
    </ul>
  );
}

/** Adds a memory in the person's own words (pinned when they ask). */
export function RememberForm() {
  const { pending, change } = useChange();
  const [content, setContent] = useState('');
  const [pinned, setPinned] = useState(false);
  return (
    <form
      aria-label="Remember something"
      onSubmit={(e) => {
        e.preventDefault();
        void change(() => trpc.memories.create.mutate({ content, pinned }), 'Remembered.').then((ok) => {
          if (ok) {
            setContent('');
            setPinned(false);
          }
        });
      }}
    >
      <Field id="memory-new" label="What should your assistant remember?">
        <Textarea id="memory-new" value={content} required maxLength={100_000} onChange={(e) => setContent(e.target.value)} />
      </Field>
      <label className={s.check}>
        <input type="checkbox" checked={pinned} onChange={(e) => setPinned(e.target.checked)} /> Pin it (always in your assistant’s context)
      </label>
      <div className={ui.actions}>
        <button className={s.button} type="submit" disabled={pending || !content.trim()}>
          Remember
        </button>
      </div>
    </form>
  );
}
