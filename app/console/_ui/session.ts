import { notFound } from 'next/navigation';
import { requireSignedIn, serverCaller } from '@/app/_lib/server-caller';
import { AppError } from '@/server/http/errors';

/**
 * The console's session on a page: signed in (else the sign-in page, back here after) and a console
 * member of this account (else Next's 404, as if there were no console). `canChange` is false for a
 * viewer: pages then show no change controls (and the server refuses changes anyway).
 */
export async function consoleSession(returnTo: string) {
  const { api, ctx, me } = await requireSignedIn(returnTo);
  try {
    const member = await api.console.me();
    return { api, ctx, me, member, canChange: member.role !== 'viewer', isOwner: member.role === 'owner' };
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    if ((e as { code?: string }).code === 'NOT_FOUND' || (cause instanceof AppError && cause.status === 404)) notFound();
    throw e;
  }
}

/** The console member of this request and their time preferences, or null (signed out, not a member, anything unreadable): for the frame. */
export async function consoleMember() {
  try {
    const { api } = await serverCaller();
    const [member, me] = await Promise.all([api.console.me(), api.auth.me()]);
    return { member, prefs: me?.prefs ?? null };
  } catch {
    return null;
  }
}
