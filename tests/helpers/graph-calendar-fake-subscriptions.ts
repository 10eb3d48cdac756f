import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { sendJson } from '../mailboxes/support/fake-oauth';
import { pushPoster } from './calendar-push-fake';

/*
 * The Graph calendar stand-in's subscriptions on a calendar's events (`me/calendars/{id}/events`;
 * others are the mail stand-in's): made after the validation handshake (the token posted to the
 * notification URL must come back as text/plain within 10 seconds), at most 4,230 minutes long,
 * renewed (PATCH) and deleted (each DELETE recorded; `refuseDelete` makes it fail); after every
 * change to the calendar's events, each subscription is posted a changeNotificationCollection
 * with its clientState.
 */

const graphError = (res: http.ServerResponse, status: number, code: string, message: string) => sendJson(res, status, { error: { code, message } });

export function graphCalendarSubscriptions(o: { accountOf: (authorization: string | undefined) => { address: string; calendars: Map<string, unknown> } | undefined }) {
  type Subscription = { id: string; user: string; calendarId: string; resource: string; changeType: string; notificationUrl: string; clientState: string; expirationDateTime: string };
  const subscriptions = new Map<string, Subscription>();
  const push = pushPoster();
  const validations: Array<{ status: number; echoed: string; contentType: string | null }> = [];
  /** Every DELETE /subscriptions/{id} on a calendar's subscription, with the status answered. */
  const deletions: Array<{ id: string; status: number }> = [];
  let deleteRefusal: { status: number; code: string; message: string } | null = null;

  const notification = (sub: Subscription, eventId: string, changeType: string, clientState = sub.clientState) =>
    JSON.stringify({
      value: [
        {
          subscriptionId: sub.id,
          subscriptionExpirationDateTime: sub.expirationDateTime,
          changeType,
          resource: `Users/${sub.user}/Events/${eventId}`,
          resourceData: { '@odata.type': '#Microsoft.Graph.Event', '@odata.id': `Users/${sub.user}/Events/${eventId}`, '@odata.etag': 'W/"DwAAABYAAAA"', id: eventId },
          clientState,
          tenantId: '00000000-0000-0000-0000-000000000000',
        },
      ],
    });

  /** After a change to a calendar's events: its subscriptions are told (after Graph's own answer). */
  function changed(user: string, calendarId: string, eventId: string, changeType: string) {
    for (const sub of subscriptions.values())
      if (sub.user === user && sub.calendarId === calendarId && Date.parse(sub.expirationDateTime) > Date.now() && sub.changeType.split(',').includes(changeType))
        push.later(sub.notificationUrl, { 'Content-Type': 'application/json' }, notification(sub, eventId, changeType));
  }

  /** POST/PATCH/DELETE /subscriptions on a calendar's events; false: not this stand-in's (the mail stand-in's). */
  async function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer): Promise<boolean> {
    const acct = o.accountOf(req.headers.authorization);
    if (!acct) return false;
    if (req.method === 'POST' && url.pathname === '/v1.0/subscriptions') {
      const b = JSON.parse(body.toString('utf8') || '{}') as Partial<Subscription> & { expirationDateTime?: string };
      const m = /^\/?me\/calendars\/([^/]+)\/events$/.exec(b.resource ?? '');
      if (!m) return false;
      const calendarId = decodeURIComponent(m[1]);
      if (!acct.calendars.has(calendarId)) return graphError(res, 404, 'ResourceNotFound', 'The calendar was not found.'), true;
      const expires = Date.parse(b.expirationDateTime ?? '');
      if (Number.isNaN(expires) || expires - Date.now() > 4230 * 60_000) return graphError(res, 400, 'ExtensionError', 'Subscription expiration can only be 4230 minutes in the future.'), true;
      if (!b.notificationUrl?.startsWith('https://')) return graphError(res, 400, 'ValidationError', 'The Notification Url must be https.'), true;
      const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomBytes(8).toString('hex')}`;
      const u = new URL(b.notificationUrl);
      u.searchParams.set('validationToken', token);
      const v = await push.post(u.href, { 'Content-Type': 'text/plain; charset=utf-8' }, '');
      validations.push({ status: v.status, echoed: v.text, contentType: v.contentType });
      if (v.status !== 200 || v.text !== token || !(v.contentType ?? '').startsWith('text/plain'))
        return graphError(res, 400, 'ValidationError', 'Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.'), true;
      const sub: Subscription = { id: randomBytes(16).toString('hex'), user: acct.address, calendarId, resource: b.resource!, changeType: b.changeType ?? 'created', notificationUrl: b.notificationUrl, clientState: b.clientState ?? '', expirationDateTime: new Date(expires).toISOString() };
      subscriptions.set(sub.id, sub);
      sendJson(res, 201, sub);
      return true;
    }
    const one = /^\/v1\.0\/subscriptions\/([^/]+)$/.exec(url.pathname);
    const sub = one ? subscriptions.get(one[1]) : undefined;
    if (!sub) return false;
    if (sub.user !== acct.address) return graphError(res, 404, 'ResourceNotFound', 'The object was not found.'), true;
    if (req.method === 'DELETE') {
      deletions.push({ id: sub.id, status: deleteRefusal?.status ?? 204 });
      if (deleteRefusal) return graphError(res, deleteRefusal.status, deleteRefusal.code, deleteRefusal.message), true;
      subscriptions.delete(sub.id);
      res.writeHead(204).end();
      return true;
    }
    if (req.method === 'PATCH') {
      const b = JSON.parse(body.toString('utf8') || '{}') as { expirationDateTime?: string };
      const expires = Date.parse(b.expirationDateTime ?? '');
      if (Number.isNaN(expires) || expires - Date.now() > 4230 * 60_000) return graphError(res, 400, 'ExtensionError', 'Subscription expiration can only be 4230 minutes in the future.'), true;
      sub.expirationDateTime = new Date(expires).toISOString();
      sendJson(res, 200, sub);
      return true;
    }
    return false;
  }

  return {
    changed,
    route,
    list: () => [...subscriptions.values()].map((x) => ({ ...x })),
    validations,
    deletions,
    /** DELETE answers this refusal and the subscription stays (null: subscriptions are deleted). */
    refuseDelete(refusal: { status: number; code: string; message: string } | null) {
      deleteRefusal = refusal;
    },
    replay: push.replay,
    pushes: push.posts,
    settled: push.settled,
    routePush: push.route,
    async notify(subscriptionId: string, eventId: string, opts: { clientState?: string } = {}): Promise<number> {
      const sub = subscriptions.get(subscriptionId);
      if (!sub) throw new Error(`graph-calendar-fake: no subscription ${subscriptionId}`);
      return (await push.post(sub.notificationUrl, { 'Content-Type': 'application/json' }, notification(sub, eventId, 'updated', opts.clientState))).status;
    },
  };
}
