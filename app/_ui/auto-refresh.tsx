'use client';
import { useRouter } from 'next/navigation';
import { usePolling } from '@/app/_lib/use-polling';

/** Re-renders the server page every `ms` while it is visible: a task that is working shows its progress. */
export function AutoRefresh({ ms }: { ms: number }) {
  const router = useRouter();
  usePolling(async () => router.refresh(), ms);
  return null;
}
