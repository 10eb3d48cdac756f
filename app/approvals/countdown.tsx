'use client';
import { useEffect, useRef, useState } from 'react';
import { Timer } from 'lucide-react';
import { Button } from '@/app/_ui/button';
import { Time } from '@/app/_ui/time';

const two = (n: number) => String(n).padStart(2, '0');

/** "1 h 04 min", "4 min 05 s", "12 s": what is left, to the second. */
function exact(ms: number) {
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h) return `${h} h ${two(m)} min`;
  if (m) return `${m} min ${two(sec)} s`;
  return `${sec} s`;
}

/** "about 5 minutes": what the once-a-minute announcement says. */
function rounded(ms: number) {
  const min = Math.ceil(ms / 60_000);
  if (min >= 120) return `about ${Math.round(min / 60)} hours`;
  return min <= 1 ? 'less than a minute' : `about ${min} minutes`;
}

/**
 * A time box's countdown. The visible timer updates every second but is not a live region (a
 * screen reader is not read a number every second); a separate polite live region says what is
 * left when the minute changes, and the button says it exactly on demand. `onElapsed` runs once
 * when the window ends.
 */
export function Countdown({ expiresAt, expiry, label, onElapsed }: { expiresAt: string; expiry: 'execute' | 'cancel' | null; label: string; onElapsed: () => void }) {
  const end = Date.parse(expiresAt);
  const what = expiry === 'cancel' ? 'cancelled' : 'sent';
  // null until mounted: the server renders no clock, so the page hydrates without a mismatch.
  const [now, setNow] = useState<number | null>(null);
  const [announced, setAnnounced] = useState('');
  const minute = useRef<number | null>(null);
  const elapsed = useRef(false);
  const elapsedCallback = useRef(onElapsed);
  elapsedCallback.current = onElapsed;

  useEffect(() => {
    const tick = () => setNow(Date.now());
    tick();
    const t = setInterval(tick, 1000);
    return () => clearInterval(t);
  }, []);

  // Saying the same words again changes the region (a trailing no-break space), so it is read again.
  const say = (words: string) => setAnnounced((prev) => (prev === words ? `${words}\u00a0` : words));
  const left = now === null ? null : Math.max(0, end - now);
  useEffect(() => {
    if (left === null) return;
    if (left === 0) {
      if (!elapsed.current) {
        elapsed.current = true;
        setAnnounced(`The review window of ${label} ended: it is being ${what}.`);
        elapsedCallback.current();
      }
      return;
    }
    const m = Math.ceil(left / 60_000);
    // The first reading sets the minute silently; each later change of minute is announced once.
    if (minute.current !== null && m !== minute.current) setAnnounced(`${rounded(left)} left before ${label} is ${what}.`);
    minute.current = m;
  }, [left, label, what]);

  return (
    <div className="my-2 flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border border-warn-border/50 bg-warn-soft px-3 py-2 text-sm">
      <Timer aria-hidden="true" className="size-4 shrink-0 text-warn" />
      <p className="min-w-0 flex-1">
        {left === null ? (
          <>Time-boxed: it will be {what} when its review window ends, unless you act first.</>
        ) : left > 0 ? (
          <>
            Will be {what} in{' '}
            <span role="timer" aria-live="off" className="font-semibold tabular">
              {exact(left)}
            </span>{' '}
            (at <Time value={expiresAt} />), unless you act first.
          </>
        ) : (
          <>The review window ended.</>
        )}
      </p>
      <Button variant="ghost" size="sm" onClick={() => say(left === null || left === 0 ? `The review window of ${label} ended.` : `${exact(left)} left before ${label} is ${what}.`)}>
        Say the time left<span className="sr-only"> for {label}</span>
      </Button>
      <p aria-live="polite" className="sr-only">
        {announced}
      </p>
    </div>
  );
}
