import { describe, expect, it } from 'vitest';
import { formatFull, formatNumber, formatRelative, formatWhen } from '@/app/_lib/time';

/*
 * Dates as the person reads them (app/_lib/time.ts): their zone and locale, never the server's.
 * The formatters are kept per locale, zone and options, so these also check that one person's
 * zone or locale never shows up in another's text.
 */
const now = new Date('2026-07-15T12:00:00Z');
const paris = { timezone: 'Europe/Paris', locale: 'en-GB' };
const newYork = { timezone: 'America/New_York', locale: 'en-US' };

describe('formatWhen', () => {
  it('today a clock, yesterday a word and a clock, this year a short date, before that the year, each in the person’s zone', () => {
    expect(formatWhen('2026-07-15T09:05:00Z', paris, now)).toBe('11:05');
    expect(formatWhen('2026-07-15T09:05:00Z', newYork, now)).toBe('5:05 AM');
    expect(formatWhen('2026-07-14T09:05:00Z', paris, now)).toBe('Yesterday 11:05');
    expect(formatWhen('2026-03-03T09:05:00Z', paris, now)).toMatch(/^Tue,? 3 Mar,? 10:05$/);
    expect(formatWhen('2025-03-03T09:05:00Z', paris, now)).toBe('3 Mar 2025');
    // The same moment is "today" in one zone and "yesterday" in another.
    expect(formatWhen('2026-07-15T02:00:00Z', newYork, now)).toBe('Yesterday 10:00 PM');
    expect(formatWhen('2026-07-15T02:00:00Z', paris, now)).toBe('4:00');
  });

  it('an unknown zone reads as UTC and an unknown locale as English, every time it is asked', () => {
    for (let i = 0; i < 2; i++) {
      expect(formatWhen('2026-07-15T09:05:00Z', { timezone: 'Mars/Olympus', locale: 'en-GB' }, now)).toBe('9:05');
      expect(formatWhen('2026-07-15T09:05:00Z', { timezone: 'UTC', locale: 'not a locale!' }, now)).toBe('9:05 AM');
    }
    expect(formatWhen('not a date', paris, now)).toBe('');
  });
});

describe('formatFull, formatRelative, formatNumber', () => {
  it('the full date names the person’s day; relative and numbers follow the locale', () => {
    expect(formatFull('2026-07-15T23:30:00Z', paris)).toMatch(/^Thursday,? 16 July 2026 at 01:30$/);
    expect(formatFull('2026-07-15T23:30:00Z', newYork)).toMatch(/^Wednesday, July 15, 2026 at 7:30\s?PM$/);
    expect(formatRelative('2026-07-15T12:04:00Z', paris, now)).toBe('in 4 min');
    expect(formatRelative('2026-07-15T10:00:00Z', { timezone: 'UTC', locale: 'fr' }, now)).toMatch(/^il y a 2\sh$/);
    expect(formatNumber(1234567.5, { timezone: 'UTC', locale: 'de' })).toBe('1.234.567,5');
    expect(formatNumber(1234567.5, paris)).toBe('1,234,567.5');
  });
});
