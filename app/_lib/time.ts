/*
 * Dates as the person reads them: in their timezone and locale (their profile), never the
 * server's. Pure functions, so a server component and the browser write the same text.
 */
export type Prefs = { timezone: string; locale: string };

export const DEFAULT_PREFS: Prefs = { timezone: 'UTC', locale: 'en' };

const safeLocale = (l: string) => {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([l]).length ? l : 'en';
  } catch {
    return 'en';
  }
};
const safeZone = (z: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: z });
    return z;
  } catch {
    return 'UTC';
  }
};

const dayKey = (d: Date, tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);

/** "14:05" today, "Yesterday 09:10", "Tue 3 Dec, 09:10" this year, "3 Dec 2025" before. */
export function formatWhen(value: string | Date, prefs: Prefs, now = new Date()): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return '';
  const tz = safeZone(prefs.timezone);
  const locale = safeLocale(prefs.locale);
  const time = new Intl.DateTimeFormat(locale, { timeZone: tz, hour: 'numeric', minute: '2-digit' }).format(d);
  const today = dayKey(now, tz);
  const day = dayKey(d, tz);
  if (day === today) return time;
  const yesterday = dayKey(new Date(now.getTime() - 86_400_000), tz);
  if (day === yesterday) return `${new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(-1, 'day').replace(/^./, (c) => c.toUpperCase())} ${time}`;
  const sameYear = day.slice(0, 4) === today.slice(0, 4);
  if (sameYear || d.getTime() > now.getTime()) return new Intl.DateTimeFormat(locale, { timeZone: tz, weekday: 'short', day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit' }).format(d);
  return new Intl.DateTimeFormat(locale, { timeZone: tz, day: 'numeric', month: 'short', year: 'numeric' }).format(d);
}

/** The full date and time with the zone's name: the tooltip of a <Time>. */
export function formatFull(value: string | Date, prefs: Prefs): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return '';
  return new Intl.DateTimeFormat(safeLocale(prefs.locale), { timeZone: safeZone(prefs.timezone), dateStyle: 'full', timeStyle: 'short' }).format(d);
}

/** "in 4 min", "2 h ago". */
export function formatRelative(value: string | Date, prefs: Prefs, now = new Date()): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  const s = Math.round((d.getTime() - now.getTime()) / 1000);
  const rtf = new Intl.RelativeTimeFormat(safeLocale(prefs.locale), { numeric: 'auto', style: 'short' });
  const a = Math.abs(s);
  if (a < 60) return rtf.format(s, 'second');
  if (a < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (a < 86_400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86_400), 'day');
}

/** Money in credits, numbers in the person's locale. */
export const formatNumber = (n: number, prefs: Prefs) => new Intl.NumberFormat(safeLocale(prefs.locale)).format(n);
