import { expect } from 'vitest';
import type { TestServer } from './server';

/*
 * Connecting calendars by OAuth as a browser goes through it: the start (the user's key)
 * redirects to /api/oauth/begin, which sets the binding cookie and redirects to the provider's
 * consent page (the stand-in consents at once), which redirects back to the mailbox's callback
 * with the code.
 */

export type CalendarFlow = { authorizeUrl: URL; callback: URL; cookie: string; finish: () => Promise<Response> };

export async function beginCalendarConnect(app: TestServer, key: string, provider: 'google' | 'microsoft'): Promise<CalendarFlow> {
  const started = await fetch(`${app.baseUrl}/oauth/calendar/authorize?provider=${provider}`, { headers: { Authorization: `Bearer ${key}` }, redirect: 'manual' });
  expect(started.status, await started.clone().text()).toBe(302);
  const begun = await fetch(started.headers.get('location')!, { redirect: 'manual' });
  expect(begun.status, await begun.clone().text()).toBe(302);
  const cookie = begun.headers.get('set-cookie')!.split(';')[0];
  const authorizeUrl = new URL(begun.headers.get('location')!);
  const consent = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(consent.status, await consent.clone().text()).toBe(302);
  const callback = new URL(consent.headers.get('location')!);
  return { authorizeUrl, callback, cookie, finish: () => fetch(callback, { headers: { cookie }, redirect: 'manual' }) };
}

export type ConnectedCalendars = { id: string; provider: string; username: string | null; status: string; calendars: Array<{ id: string; name: string; primary: boolean; readOnly: boolean }> };

/** Connects and answers the callback's JSON (the calendar connection). */
export async function connectCalendars(app: TestServer, key: string, provider: 'google' | 'microsoft') {
  const flow = await beginCalendarConnect(app, key, provider);
  const done = await flow.finish();
  const body = await done.json();
  expect(done.status, JSON.stringify(body)).toBe(200);
  return { flow, connection: body.connection as ConnectedCalendars };
}
