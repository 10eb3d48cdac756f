'use client';
import { Building2, FileClock, Globe, KeyRound, ShieldCheck, SlidersHorizontal, Users } from 'lucide-react';
import { SideNav } from '@/app/_ui/nav-links';

/** An organization's sections; admins see every one, members only what they may read. */
export function OrgNav({ orgId, isAdmin }: { orgId: string; isAdmin: boolean }) {
  const base = `/organizations/${orgId}`;
  const items = [
    { href: base, label: 'General', icon: <Building2 aria-hidden="true" />, exact: true },
    { href: `${base}/members`, label: 'Members', icon: <Users aria-hidden="true" /> },
    ...(isAdmin
      ? [
          { href: `${base}/domains`, label: 'Domains', icon: <Globe aria-hidden="true" /> },
          { href: `${base}/sign-in`, label: 'Sign-in and provisioning', icon: <ShieldCheck aria-hidden="true" /> },
          { href: `${base}/capabilities`, label: 'Capabilities', icon: <SlidersHorizontal aria-hidden="true" /> },
          { href: `${base}/keys`, label: 'API keys', icon: <KeyRound aria-hidden="true" /> },
          { href: `${base}/audit`, label: 'Audit log', icon: <FileClock aria-hidden="true" /> },
        ]
      : []),
  ];
  return <SideNav label="Organization sections" items={items} />;
}
