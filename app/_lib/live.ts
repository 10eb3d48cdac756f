'use client';
import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';

/*
 * Live lists (issue 45): one EventSource per page on /live (server/trpc/live-stream.ts), shared by
 * every list on it. `useLive(['needs'], fn)` calls fn when one of those lists moved; a list whose
 * rows come from the server page uses `useLiveRefresh(['tasks'])`, which re-renders the page.
 */
export type LiveTopic = 'needs' | 'tasks' | 'chats' | 'sent';
type Handler = (topics: LiveTopic[]) => void;

const handlers = new Set<Handler>();
let source: EventSource | null = null;

function open() {
  if (source || typeof EventSource === 'undefined') return;
  source = new EventSource('/live');
  source.addEventListener('moved', (e) => {
    const { topics } = JSON.parse((e as MessageEvent<string>).data) as { topics: LiveTopic[] };
    for (const h of handlers) h(topics);
  });
  // Tell handlers to read again after a reconnect: what moved while the stream was down is not replayed.
  let opened = false;
  source.addEventListener('ready', () => {
    if (opened) for (const h of handlers) h(['needs', 'tasks', 'chats', 'sent']);
    opened = true;
  });
}

function close() {
  if (handlers.size || !source) return;
  source.close();
  source = null;
}

export function useLive(topics: LiveTopic[], onMoved: () => void) {
  const latest = useRef(onMoved);
  latest.current = onMoved;
  const key = topics.join(',');
  useEffect(() => {
    const wanted = key.split(',') as LiveTopic[];
    const h: Handler = (moved) => {
      if (moved.some((t) => wanted.includes(t))) latest.current();
    };
    handlers.add(h);
    open();
    return () => {
      handlers.delete(h);
      close();
    };
  }, [key]);
}

/** Re-renders the server page when one of `topics` moved (a list read on the server). */
export function useLiveRefresh(topics: LiveTopic[]) {
  const router = useRouter();
  useLive(topics, () => router.refresh());
}

/** Drop-in component: <LiveRefresh topics={['tasks']} /> in a server page. */
export function LiveRefresh({ topics }: { topics: LiveTopic[] }) {
  useLiveRefresh(topics);
  return null;
}

/** The home list tells the navigation its fresh count with this window event (no second request). */
export const NEEDS_ME_EVENT = 'steward:needs-me';
/** A fallback read of the nav count when the live stream cannot be had. */
export const NAV_COUNT_POLL_MS = 60_000;
export const NEEDS_ME_POLL_MS = 30_000;
