'use client';
import { useEffect, useRef } from 'react';

/**
 * Calls `read` every `ms` while the page is visible, and once at once when it becomes visible
 * again; never two reads at the same time. `read` may change between renders.
 */
export function usePolling(read: () => Promise<void>, ms: number) {
  const latest = useRef(read);
  latest.current = read;
  useEffect(() => {
    let busy = false;
    const tick = async () => {
      if (busy || document.visibilityState !== 'visible') return;
      busy = true;
      try {
        await latest.current();
      } catch {
        // A failed read is retried at the next tick; the page keeps what it shows.
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(tick, ms);
    const onShow = () => void tick();
    document.addEventListener('visibilitychange', onShow);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onShow);
    };
  }, [ms]);
}
