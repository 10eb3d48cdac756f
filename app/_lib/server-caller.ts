import { headers } from 'next/headers';
import { cache } from 'react';
import { notFound, redirect } from 'next/navigation';
import { sharedDatabase } from '@/db/client';
import { AppError } from '@/server/http/errors';
import { appRouter } from '@/server/trpc/app-router';
import { hostedSite } from '@/server/hosted/accounts';
import { portalContext } from '@/server/trpc/context';

/**
 * The hosted app this request is for (its account, by host), read once per request (React's
 * cache): the page, its frame and Next's not-found boundary, which is rendered into every page,
 * share it. Throws hostedSite's 404 when no account answers here.
 */
export const requestSite = cache(async function requestSite() {
  return hostedSite(sharedDatabase().db, await headers());
});

/** The request's portal context (site, signed-in actor), once per request; throws as portalContext does. */
export const requestContext = cache(async function requestContext() {
  // This context lives for one render: what its calls ask again (a console membership) is answered once.
  return { ...(await portalContext(sharedDatabase().db, await headers(), await requestSite())), memo: {} };
});

/**
 * Server components read through the same routers (and so the same services) as the browser.
 * Once per request (React's cache): the page and its frame share one session lookup.
 */
export const serverCaller = cache(async function serverCaller() {
  try {
    const ctx = await requestContext();
    return { ctx, api: appRouter.createCaller(ctx) };
  } catch (e) {
    if (e instanceof AppError && e.status === 404) notFound();
    // A session whose user was blocked, or whose organization now enforces SSO: sign in again.
    if (e instanceof AppError) redirect(`/sign-in?error=${e.code}`);
    throw e;
  }
});

/**
 * The signed-in person's summary (auth.me), read once per request: a page and its layout (the
 * console's frame and page, for one) both ask for it, and each read is two queries.
 */
export const requestMe = cache(async function requestMe() {
  const { api } = await serverCaller();
  return api.auth.me();
});

/** The signed-in person, or a redirect to the sign-in page. */
export async function requireSignedIn(returnTo: string) {
  const { ctx, api } = await serverCaller();
  const me = await requestMe();
  if (!me || !ctx.actor) redirect(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  return { ctx, api, me };
}

/** Runs a read; a refusal (403/404) becomes Next's not-found page rather than an error. */
export async function readOrNotFound<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    const status = (e as { cause?: unknown }).cause instanceof AppError ? ((e as { cause: AppError }).cause.status) : null;
    if (status === 403 || status === 404) notFound();
    throw e;
  }
}
