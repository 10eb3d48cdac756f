'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';
import { NAV_COUNT_POLL_MS, NEEDS_ME_EVENT } from '@/app/_lib/live';
import { trpc } from '@/app/_lib/trpc-client';
import { usePolling } from '@/app/_lib/use-polling';
import s from './hosted.module.css';

const LINKS = [
  { href: '/tasks', label: 'Tasks' },
  { href: '/chats', label: 'Chats' },
  { href: '/approvals', label: 'Approvals' },
  { href: '/handoffs', label: 'Handoffs' },
  { href: '/sent', label: 'Sent' },
  { href: '/usage', label: 'Usage' },
  { href: '/settings', label: 'Settings' },
] as const;

const isCurrent = (path: string, href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));

/** The count of what waits on the person, kept fresh: from the home list when it reads, else polled. */
function NeedsMeCount({ initial }: { initial: number }) {
  const [n, setN] = useState(initial);
  useEffect(() => {
    const onCount = (e: Event) => setN((e as CustomEvent<number>).detail);
    window.addEventListener(NEEDS_ME_EVENT, onCount);
    return () => window.removeEventListener(NEEDS_ME_EVENT, onCount);
  }, []);
  usePolling(async () => setN((await trpc.inbox.count.query()).total), NAV_COUNT_POLL_MS);
  if (n === 0) return null;
  return (
    <span className={s.count} data-testid="needs-me-count">
      {n}
      <span className="sr-only"> waiting for you</span>
    </span>
  );
}

/** The main links, the current page marked for screen readers (aria-current) and by style. */
export function NavLinks({ needsMe }: { needsMe: number }) {
  const path = usePathname() ?? '/';
  return (
    <>
      <li>
        <Link href="/" className={s.navLink} aria-current={isCurrent(path, '/') ? 'page' : undefined}>
          Home <NeedsMeCount initial={needsMe} />
        </Link>
      </li>
      {LINKS.map((l) => (
        <li key={l.href}>
          <Link href={l.href} className={s.navLink} aria-current={isCurrent(path, l.href) ? 'page' : undefined}>
            {l.label}
          </Link>
        </li>
      ))}
    </>
  );
}
