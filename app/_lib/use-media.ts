'use client';
import { useEffect, useState } from 'react';

/** Whether a media query matches (false on the server and until the page is hydrated). */
export function useMedia(query: string): boolean {
  const [on, setOn] = useState(false);
  useEffect(() => {
    const m = window.matchMedia(query);
    const sync = () => setOn(m.matches);
    sync();
    m.addEventListener('change', sync);
    return () => m.removeEventListener('change', sync);
  }, [query]);
  return on;
}

export const WIDE = '(min-width: 1024px)';
