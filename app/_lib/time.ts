/*
 * Dates as the person reads them: in their timezone and locale (their profile), never the
 * server's. Pure functions, so a server component and the browser write the same text.
 */
export type Prefs = { timezone: string; locale: string };

export const DEFAULT_PREFS: Prefs = { timezone: 'UTC', locale: 'en' };

/*
 * Building an Intl formatter costs far more than using one (ICU loads the locale's and zone's
 * data: about 0.2 ms each, several per date), and a page shows a date on every row; so each
 * formatter is built once per process (or tab) for its locale, zone and options, and kept.
 * The keys are few: the locales and zones of the people served, times a handful of shapes.
 */
const kept = new Map<string, Intl.DateTimeFormat | Intl.RelativeTimeFormat | Intl.NumberFormat>();
function keep<T extends Intl.DateTimeFormat | Intl.RelativeTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let f = kept.get(key) as T | undefined;
  if (!f) {
    f = make();
    kept.set(key, f);
  }
  return f;
}

const checkedLocales = new Map<string, string>();
const safeLocale = (l: string) => {
  let ok = checkedLocales.get(l);
  if (ok === undefined) {
    try {
      ok = Intl.DateTimeFormat.supportedLocalesOf([l]).length ? l : 'en';
    } catch {
      ok = 'en';
    }
    checkedLocales.set(l, ok);
  }
  return ok;
};
const checkedZones = new Map<string, string>();
const safeZone = (z: string) => {
  let ok = checkedZones.get(z);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: z });
      ok = z;
    } catch {
      ok = 'UTC';
    }
    checkedZones.set(z, ok);
  }
  return ok;
};

/** The date-time formatter for a locale and zone (both already checked) and these options. */
export const dateFormat = (locale: string, timeZone: string, options: Intl.DateTimeFormatOptions) =>
  keep(`d|${locale}|${timeZone}|${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(locale, { ...options, timeZone }));

/** The same, from a person's preferences (their locale and zone, checked). */
export const prefsDateFormat = (prefs: Prefs, options: Intl.DateTimeFormatOptions) => dateFormat(safeLocale(prefs.locale), safeZone(prefs.timezone), options);

const dayKey = (d: Date, tz: string) => dateFormat('en-CA', tz, { year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);

/** "14:05" today, "Yesterday 09:10", "Tue 3 Dec, 09:10" this year, "3 Dec 2025" before. */
export function formatWhen(value: string | Date, prefs: Prefs, now = new Date()): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return '';
  const tz = safeZone(prefs.timezone);
  const locale = safeLocale(prefs.locale);
  const time = dateFormat(locale, tz, { hour: 'numeric', minute: '2-digit' }).format(d);
  const today = dayKey(now, tz);
  const day = dayKey(d, tz);
  if (day === today) return time;
  const yesterday = dayKey(new Date(now.getTime() - 86_400_000), tz);
  if (day === yesterday) return `${keep(`r|${locale}|auto`, () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })).format(-1, 'day').replace(/^./, (c) => c.toUpperCase())} ${time}`;
  const sameYear = day.slice(0, 4) === today.slice(0, 4);
  if (sameYear || d.getTime() > now.getTime()) return dateFormat(locale, tz, { weekday: 'short', day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit' }).format(d);
  return dateFormat(locale, tz, { day: 'numeric', month: 'short', year: 'numeric' }).format(d);
}

/** The full date and time with the zone's name: the tooltip of a <Time>. */
export function formatFull(value: string | Date, prefs: Prefs): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return '';
  return prefsDateFormat(prefs, { dateStyle: 'full', timeStyle: 'short' }).format(d);
}

/** "in 4 min", "2 h ago". */
export function formatRelative(value: string | Date, prefs: Prefs, now = new Date()): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  const s = Math.round((d.getTime() - now.getTime()) / 1000);
  const locale = safeLocale(prefs.locale);
  const rtf = keep(`r|${locale}|auto-short`, () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' }));
  const a = Math.abs(s);
  if (a < 60) return rtf.format(s, 'second');
  if (a < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (a < 86_400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86_400), 'day');
}

/** Money in credits, numbers in the person's locale. */
export const formatNumber = (n: number, prefs: Prefs) => {
  const locale = safeLocale(prefs.locale);
  return keep(`n|${locale}`, () => new Intl.NumberFormat(locale)).format(n);
};
