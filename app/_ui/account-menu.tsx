import { Building2, LogOut, Mail, UsersRound } from 'lucide-react';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { ConsoleLink } from '@/app/console/_ui/console-link';
import { Avatar } from './avatar';

export type Place = { href: string; label: string; kind: 'organization' | 'team' | 'invitations' };

const ICON: Record<Place['kind'], ReactNode> = {
  organization: <Building2 aria-hidden="true" />,
  team: <UsersRound aria-hidden="true" />,
  invitations: <Mail aria-hidden="true" />,
};

/**
 * The person's own block: who is signed in, their organization and teams, the console (for its
 * members), and sign-out as a same-origin POST (a cross-site link or GET must not sign anyone out).
 * Rendered as list items inside the main navigation.
 */
export function AccountBlock({ name, email, places }: { name: string; email: string; places: Place[] }) {
  const link = 'flex min-h-11 items-center gap-2.5 rounded-md px-2.5 text-sm text-fg no-underline hover:bg-raised lg:min-h-9 [&_svg]:size-4 [&_svg]:text-muted';
  return (
    <>
      {places.map((p) => (
        <li key={p.href}>
          <Link href={p.href} className={link}>
            {ICON[p.kind]}
            <span className="truncate">{p.label}</span>
          </Link>
        </li>
      ))}
      <ConsoleLink />
      <li className="mt-3 flex items-center gap-2 border-t border-border px-1 pt-3">
        <Avatar name={name} size="sm" />
        <span className="min-w-0 flex-1 truncate text-sm" title={email}>
          {name}
        </span>
        <form method="post" action="/api/sso/saml/slo">
          <button type="submit" className="inline-flex min-h-11 items-center gap-1.5 rounded-md px-2 text-sm text-muted hover:bg-raised hover:text-fg lg:min-h-8 [&_svg]:size-4">
            <LogOut aria-hidden="true" />
            Sign out<span className="sr-only"> ({email})</span>
          </button>
        </form>
      </li>
    </>
  );
}
