/**
 * A moment as the user reads it: in their time zone, written the way their locale writes dates
 * (spec 1 `locale`; an unknown locale falls back to en-GB, an unknown zone to the ISO form).
 */
export function localTime(now: Date, timezone: string, locale = 'en-GB', style: 'full' | 'medium' = 'full'): string {
  for (const tag of [locale, 'en-GB']) {
    try {
      return new Intl.DateTimeFormat(tag, { timeZone: timezone, dateStyle: style, timeStyle: 'short' }).format(now);
    } catch {
      // an unknown locale: try the default; an unknown zone fails both
    }
  }
  return now.toISOString();
}
