import { SlidersHorizontal } from 'lucide-react';
import Link from 'next/link';
import { serverCaller } from '@/app/_lib/server-caller';

/** "Console" in the main navigation's account block, for console members only (nothing for anyone else, nor when it cannot be read). */
export async function ConsoleLink() {
  try {
    const { api } = await serverCaller();
    if (!(await api.console.membership())) return null;
  } catch {
    return null;
  }
  return (
    <li>
      <Link href="/console" className="flex min-h-11 items-center gap-2.5 rounded-md px-2.5 text-sm text-fg no-underline hover:bg-raised lg:min-h-9 [&_svg]:size-4 [&_svg]:text-muted">
        <SlidersHorizontal aria-hidden="true" />
        <span className="truncate">Console</span>
      </Link>
    </li>
  );
}
