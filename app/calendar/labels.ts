import { hueOf } from '@/app/_ui/brand';

/* How the Calendar page names providers and connection states, and colours calendars. */

export type Provider = 'caldav' | 'google' | 'microsoft';
export type Status = 'active' | 'failing' | 'revoked';

export const PROVIDER_NAMES: Record<Provider, string> = { caldav: 'CalDAV', google: 'Google Calendar', microsoft: 'Microsoft 365' };

export const STATUS: Record<Status, { label: string; tone: 'ok' | 'warn' | 'danger' }> = {
  active: { label: 'Connected', tone: 'ok' },
  failing: { label: 'Not syncing', tone: 'warn' },
  revoked: { label: 'Access revoked', tone: 'danger' },
};

/** Which account a connection is: the provider account's address, or "username at host" for CalDAV. */
export function accountOf(c: { provider: Provider; url: string | null; username: string | null }): string {
  if (c.provider !== 'caldav') return c.username ?? '';
  let host = c.url ?? '';
  try {
    host = new URL(c.url ?? '').host;
  } catch {
    // a URL the server kept is always valid; the raw text is enough otherwise
  }
  return c.username ? `${c.username} at ${host}` : host;
}

/** The hosted OAuth start for Google or Microsoft, coming back to the Calendar page. */
export const oauthConnectHref = (provider: 'google' | 'microsoft') => `/api/oauth/calendar/connect?${new URLSearchParams({ provider, returnTo: '/calendar' })}`;

export type CalendarInfo = { id: string; name: string; color: string | null };

/** A calendar's own colour when it is a plain hex colour (it comes from the provider), else one derived from its name. */
export const calendarColour = (c: CalendarInfo | undefined) => (c?.color && /^#[0-9a-f]{6}$/i.test(c.color) ? c.color : `oklch(0.6 0.14 ${hueOf(c?.name ?? '')})`);
