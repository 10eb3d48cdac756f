'use client';
import { createContext, useContext, type ReactNode } from 'react';
import { DEFAULT_PREFS, formatFull, formatRelative, formatWhen, type Prefs } from '@/app/_lib/time';

/*
 * The person's timezone and locale for every date on the page. HostedFrame provides them from
 * their profile; <Time> reads them, so server render and browser write the same text.
 */
const PrefsContext = createContext<Prefs>(DEFAULT_PREFS);

export function PrefsProvider({ prefs, children }: { prefs: Prefs; children: ReactNode }) {
  return <PrefsContext.Provider value={prefs}>{children}</PrefsContext.Provider>;
}

export const usePrefs = () => useContext(PrefsContext);

/** A moment in the person's time: "14:05", "Yesterday 09:10"; the full date on hover. */
export function Time({ value, relative, className }: { value: string | Date | null | undefined; relative?: boolean; className?: string }) {
  const prefs = usePrefs();
  if (!value) return null;
  const iso = typeof value === 'string' ? value : value.toISOString();
  return (
    <time dateTime={iso} title={formatFull(iso, prefs)} className={className} suppressHydrationWarning>
      {relative ? formatRelative(iso, prefs) : formatWhen(iso, prefs)}
    </time>
  );
}
