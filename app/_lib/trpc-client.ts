'use client';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@/server/trpc/app-router';

/** The browser's tRPC client: same-origin JSON posts carrying the session cookie. */
export const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: '/api/trpc' })] });

/** The message and error code of a failed call, as the API would state them. */
export function describeError(e: unknown): { message: string; code: string | null } {
  if (e instanceof TRPCClientError) {
    const data = e.data as { error_code?: string | null } | undefined;
    return { message: e.message, code: data?.error_code ?? null };
  }
  return { message: e instanceof Error ? e.message : 'Something went wrong', code: null };
}
