'use client';
import { useEffect, useRef } from 'react';
import { trpc } from '@/app/_lib/trpc-client';

/** What this browser last knew waited on the person: a notification says only what is new since. */
const SEEN = 'steward.needsMe.seen';
const EVERY_MS = 60_000;

/**
 * Desktop notifications (preferences.desktop.enabled): while the hosted app is open in a tab, even
 * a hidden one, the count of what needs the person is read every minute, and a rise past what this
 * browser last knew shows one notification that opens the app's home. Nothing is shown without the
 * browser's permission, which the person gives in Settings; the first count a browser sees is only
 * remembered, so turning it on does not announce what was already there.
 */
export function DesktopNotices({ count }: { count: number }) {
  const shown = useRef<Notification | null>(null);
  useEffect(() => {
    if (typeof Notification === 'undefined') return;
    const check = (total: number) => {
      const raw = localStorage.getItem(SEEN);
      localStorage.setItem(SEEN, String(total));
      if (raw === null || Notification.permission !== 'granted') return;
      const fresh = total - Number(raw);
      if (fresh <= 0) return;
      shown.current?.close();
      const n = new Notification(fresh === 1 ? 'Something new needs you' : `${fresh} new things need you`, {
        body: `${total} waiting in all: approvals, questions, sign-ins.`,
        tag: 'steward-needs-you',
      });
      n.onclick = () => {
        window.focus();
        window.location.assign('/');
      };
      shown.current = n;
    };
    check(count);
    const timer = setInterval(() => {
      trpc.inbox.count
        .query()
        .then((r) => check(r.total))
        .catch(() => undefined);
    }, EVERY_MS);
    return () => clearInterval(timer);
  }, [count]);
  return null;
}
