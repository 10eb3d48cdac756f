'use client';
import { ExternalLink, Play, Send, ThumbsDown, ThumbsUp } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import { CartCard } from '@/app/approvals/cart-card';
import { describeError } from '@/app/_lib/trpc-client';
import type { NeedsMeItem } from '@/app/_lib/types';
import { Button } from '@/app/_ui/button';
import { Textarea } from '@/app/_ui/controls';
import { Badge } from '@/app/_ui/states';
import { TaintNote } from '@/app/_ui/taint-note';
import { Time } from '@/app/_ui/time';
import { useNotify } from '@/app/_ui/toast';
import { answerItem, approveItem, openHandoff, rejectItem } from './actions';
import { describe } from './describe';

/**
 * One inbox item in full, in the side panel or the phone's sheet: a cart as it will be sent (with
 * edit), a question with the answer box, a proposal, a stopped task, a handoff. `editRequest`
 * comes from the `e` shortcut; `done` tells the list to read again; `edited` hands it a cart's new
 * version at once, so that `a` approves the version the person now sees.
 */
export function ItemDetail({ item, editRequest, done, edited }: { item: NeedsMeItem; editRequest: number; done: () => void; edited?: (item: NeedsMeItem) => void }) {
  if (item.kind === 'cart')
    return <CartCard key={item.cart.id} initial={item.cart} editRequest={editRequest} headingLevel={2} onDecided={done} onEdited={(cart) => edited?.({ ...item, cart })} className="border-0 p-0 sm:p-0" />;
  return <TaskItemDetail item={item} editRequest={editRequest} done={done} />;
}

function TaskItemDetail({ item, editRequest, done }: { item: Exclude<NeedsMeItem, { kind: 'cart' }>; editRequest: number; done: () => void }) {
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const [answer, setAnswer] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  const d = describe(item);
  useEffect(() => {
    if (editRequest) box.current?.focus();
  }, [editRequest]);
  const run = async (fn: () => Promise<string | null | void>) => {
    setPending(true);
    try {
      const said = await fn();
      if (said) notify('ok', said);
      done();
    } catch (e) {
      notify('error', describeError(e).message);
    } finally {
      setPending(false);
    }
  };
  const task = item.kind === 'handoff' ? null : item.task;
  return (
    <article aria-labelledby={`detail-${item.key}`} className="flex flex-col gap-3">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h2 id={`detail-${item.key}`} className="min-w-0 text-lg font-semibold [overflow-wrap:anywhere]">
          {task ? (
            <Link href={`/tasks/${task.id}`} className="text-fg">
              {d.title}
            </Link>
          ) : (
            d.title
          )}
        </h2>
        <Badge tone={d.tone}>{d.kind}</Badge>
      </div>
      {item.kind === 'question' && (
        <>
          {item.question ? (
            <p className="rounded-md border border-border bg-surface px-3 py-2 whitespace-pre-wrap [overflow-wrap:anywhere]" data-testid="question">
              {item.question}
            </p>
          ) : (
            <p className="text-muted">Your assistant is waiting for your reply.</p>
          )}
          {item.task.tainted && <TaintNote sources={item.task.taintSources} />}
          <form
            className="flex flex-col gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              if (answer.trim()) void run(() => answerItem(item, answer));
            }}
          >
            <label htmlFor={`answer-${item.task.id}`} className="text-sm font-medium">
              Your answer
            </label>
            <Textarea
              ref={box}
              id={`answer-${item.task.id}`}
              value={answer}
              rows={3}
              maxLength={100_000}
              aria-describedby={`answer-${item.task.id}-hint`}
              onChange={(e) => setAnswer(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                  e.preventDefault();
                  e.currentTarget.form?.requestSubmit();
                }
              }}
            />
            <small id={`answer-${item.task.id}-hint`} className="text-sm text-muted">
              Enter sends, Shift+Enter starts a new line.
            </small>
            <div>
              <Button type="submit" disabled={pending || !answer.trim()}>
                <Send aria-hidden="true" />
                Send answer<span className="sr-only"> to “{item.task.title}”</span>
              </Button>
            </div>
          </form>
        </>
      )}
      {item.kind === 'proposal' && (
        <>
          <p className="text-sm text-muted">Your assistant proposes this task and waits for your go-ahead.</p>
          {item.task.description && <p className="whitespace-pre-wrap [overflow-wrap:anywhere]">{item.task.description}</p>}
          {item.task.tainted && <TaintNote sources={item.task.taintSources} />}
          <div className="flex flex-wrap gap-2">
            <Button disabled={pending} onClick={() => run(() => approveItem(item))}>
              <ThumbsUp aria-hidden="true" />
              Approve task<span className="sr-only"> “{item.task.title}”</span>
            </Button>
            <Button variant="danger-ghost" disabled={pending} onClick={() => run(() => rejectItem(item))}>
              <ThumbsDown aria-hidden="true" />
              Decline<span className="sr-only"> “{item.task.title}”</span>
            </Button>
          </div>
        </>
      )}
      {item.kind === 'stuck' && (
        <>
          <p>{d.line}</p>
          <p className="text-sm text-muted">
            Last change <Time value={item.task.updatedAt} />
          </p>
          {item.task.tainted && <TaintNote sources={item.task.taintSources} />}
          <div>
            <Button disabled={pending} onClick={() => run(() => approveItem(item))}>
              <Play aria-hidden="true" />
              Resume<span className="sr-only"> “{item.task.title}”</span>
            </Button>
          </div>
        </>
      )}
      {item.kind === 'handoff' && (
        <>
          <p className="text-sm text-muted">
            {item.handoff.targetUrl ? (
              <>
                At <span className="[overflow-wrap:anywhere]">{item.handoff.targetUrl}</span>.{' '}
              </>
            ) : null}
            Open until <Time value={item.handoff.expiresAt} />.
          </p>
          <div>
            <Button disabled={pending} onClick={() => run(() => openHandoff(item))}>
              <ExternalLink aria-hidden="true" />
              Open the browser<span className="sr-only"> for “{d.title}”</span>
            </Button>
          </div>
        </>
      )}
    </article>
  );
}

