'use client';
import { BarChart3, Bot, Brain, CalendarDays, CheckSquare, FileText, Home, Inbox, ListTodo, MessageSquare, MoreHorizontal, Puzzle, Send, Settings, Users } from 'lucide-react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import { NAV_COUNT_POLL_MS, NEEDS_ME_EVENT, useLive } from '@/app/_lib/live';
import { trpc } from '@/app/_lib/trpc-client';
import { usePolling } from '@/app/_lib/use-polling';
import { cn } from './cn';
import { Sheet } from './dialog';

/*
 * The app's main navigation: a side column on a wide screen (≥ 1024 px), a bar of four places and
 * "More" at the bottom of a phone. The count of what waits on the person is live (the /live stream).
 */

type Place = { href: string; label: string; icon: ReactNode };

export const PRIMARY: Place[] = [
  { href: '/', label: 'Home', icon: <Home aria-hidden="true" /> },
  { href: '/inbox', label: 'Inbox', icon: <Inbox aria-hidden="true" /> },
  { href: '/tasks', label: 'Tasks', icon: <ListTodo aria-hidden="true" /> },
  { href: '/chats', label: 'Chats', icon: <MessageSquare aria-hidden="true" /> },
];
export const SECONDARY: Place[] = [
  { href: '/approvals', label: 'Approvals', icon: <CheckSquare aria-hidden="true" /> },
  { href: '/handoffs', label: 'Handoffs', icon: <Bot aria-hidden="true" /> },
  { href: '/sent', label: 'Sent', icon: <Send aria-hidden="true" /> },
  { href: '/memories', label: 'Memories', icon: <Brain aria-hidden="true" /> },
  { href: '/calendar', label: 'Calendar', icon: <CalendarDays aria-hidden="true" /> },
  { href: '/contacts', label: 'Contacts', icon: <Users aria-hidden="true" /> },
  { href: '/files', label: 'Files', icon: <FileText aria-hidden="true" /> },
  { href: '/skills', label: 'Skills', icon: <Puzzle aria-hidden="true" /> },
  { href: '/usage', label: 'Usage', icon: <BarChart3 aria-hidden="true" /> },
  { href: '/settings', label: 'Settings', icon: <Settings aria-hidden="true" /> },
];

const isCurrent = (path: string, href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));

/** The count of what waits on the person, kept fresh by the live stream (and a slow poll when it cannot be had). */
function useNeedsCount(initial: number) {
  const [n, setN] = useState(initial);
  useEffect(() => setN(initial), [initial]);
  useEffect(() => {
    const onCount = (e: Event) => setN((e as CustomEvent<number>).detail);
    window.addEventListener(NEEDS_ME_EVENT, onCount);
    return () => window.removeEventListener(NEEDS_ME_EVENT, onCount);
  }, []);
  const read = async () => setN((await trpc.inbox.count.query()).total);
  useLive(['needs'], () => void read().catch(() => undefined));
  usePolling(read, NAV_COUNT_POLL_MS);
  return n;
}

function Count({ n, className }: { n: number; className?: string }) {
  if (n === 0) return null;
  return (
    <span className={cn('inline-flex min-w-5 items-center justify-center rounded-full bg-accent px-1.5 text-xs leading-5 font-semibold text-accent-fg tabular', className)} data-testid="needs-me-count">
      {n}
      <span className="sr-only"> waiting for you</span>
    </span>
  );
}

function SideLink({ place, path, count }: { place: Place; path: string; count?: number }) {
  const on = isCurrent(path, place.href);
  return (
    <li>
      <Link
        href={place.href}
        prefetch={false}
        aria-current={on ? 'page' : undefined}
        className={cn(
          'flex min-h-9 items-center gap-2.5 rounded-md px-2.5 text-sm text-fg no-underline hover:bg-raised [&_svg]:size-4 [&_svg]:text-muted',
          on && 'bg-raised font-semibold shadow-[inset_0_0_0_1px_var(--border)] [&_svg]:text-accent',
        )}
      >
        {place.icon}
        <span className="flex-1">{place.label}</span>
        {count !== undefined && <Count n={count} />}
      </Link>
    </li>
  );
}

/** The side column's links (wide screens). `extra` holds the account block (server-rendered). */
export function SideNavLinks({ needsMe, extra }: { needsMe: number; extra?: ReactNode }) {
  const path = usePathname() ?? '/';
  const n = useNeedsCount(needsMe);
  return (
    <>
      <ul className="flex flex-col gap-0.5">
        {PRIMARY.map((p) => (
          <SideLink key={p.href} place={p} path={path} count={p.href === '/inbox' ? n : undefined} />
        ))}
      </ul>
      <ul className="mt-4 flex flex-col gap-0.5 border-t border-border pt-4">
        {SECONDARY.map((p) => (
          <SideLink key={p.href} place={p} path={path} />
        ))}
        {extra}
      </ul>
    </>
  );
}

/** The phone's bottom bar: Home, Inbox (with the count), Tasks, Chats and More (every other place, the account, sign-out). */
export function BottomNav({ needsMe, more }: { needsMe: number; more: ReactNode }) {
  const path = usePathname() ?? '/';
  const n = useNeedsCount(needsMe);
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  const item = 'flex min-h-14 flex-1 flex-col items-center justify-center gap-0.5 text-xs text-muted no-underline [&_svg]:size-5';
  return (
    <ul className="flex">
      {PRIMARY.map((p) => (
        <li key={p.href} className="flex flex-1">
          <Link href={p.href} prefetch={false} aria-current={isCurrent(path, p.href) ? 'page' : undefined} className={cn(item, 'relative aria-[current=page]:font-semibold aria-[current=page]:text-accent')}>
            {p.icon}
            {p.label}
            {p.href === '/inbox' && <Count n={n} className="absolute top-1 left-1/2 ml-1" />}
          </Link>
        </li>
      ))}
      <li className="flex flex-1">
        <Sheet
          open={open}
          onOpenChange={setOpen}
          title="More"
          trigger={
            <button type="button" className={item}>
              <MoreHorizontal aria-hidden="true" />
              More
            </button>
          }
        >
          <ul className="grid grid-cols-2 gap-2">
            {SECONDARY.map((p) => (
              <li key={p.href}>
                <Link href={p.href} prefetch={false} aria-current={isCurrent(path, p.href) ? 'page' : undefined} className="flex min-h-12 items-center gap-2 rounded-md border border-border px-3 text-fg no-underline aria-[current=page]:border-accent aria-[current=page]:text-accent [&_svg]:size-4">
                  {p.icon}
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
          <div className="mt-4 border-t border-border pt-4">{more}</div>
        </Sheet>
      </li>
    </ul>
  );
}

