import { notFound } from 'next/navigation';
import { cache } from 'react';
import { requestMe, requireSignedIn, serverCaller } from '@/app/_lib/server-caller';
import { AppError } from '@/server/http/errors';

/** The console member of this request (console.me: a membership lookup), once per request: the frame and the page share it. */
const consoleMe = cache(async function consoleMe() {
  const { api } = await serverCaller();
  return api.console.me();
});

/**
 * The console's session on a page: signed in (else the sign-in page, back here after) and a console
 * member of this account (else Next's 404, as if there were no console). `canChange` is false for a
 * viewer: pages then show no change controls (and the server refuses changes anyway).
 */
export async function consoleSession(returnTo: string) {
  const { api, ctx, me } = await requireSignedIn(returnTo);
  try {
    const member = await consoleMe();
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
    const [member, me] = await Promise.all([consoleMe(), requestMe()]);
    return { member, prefs: me?.prefs ?? null };
  } catch {
    return null;
  }
}
