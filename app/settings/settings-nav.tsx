'use client';
import { AtSign, Bell, KeyRound, Plug, ShieldCheck } from 'lucide-react';
import { SideNav } from '@/app/_ui/nav-links';

const PAGES = [
  { href: '/settings', label: 'Profile and hours', icon: <Bell aria-hidden="true" />, exact: true },
  { href: '/settings/autonomy', label: 'Autonomy', icon: <ShieldCheck aria-hidden="true" /> },
  { href: '/settings/identifiers', label: 'Emails and phones', icon: <AtSign aria-hidden="true" /> },
  { href: '/settings/channels', label: 'Connected channels', icon: <Plug aria-hidden="true" /> },
  { href: '/settings/api-keys', label: 'API keys', icon: <KeyRound aria-hidden="true" /> },
];

/** The settings' own pages beside the content (a row above it on a phone), the current one marked. */
export function SettingsNav() {
  return <SideNav label="Settings" items={PAGES} />;
}
