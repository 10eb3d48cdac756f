import { describe, expect, it } from 'vitest';
import { calendarConnections, calendars } from '@/db/schema';
import { defaultCalendar } from '@/server/calendars/write-target';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * `preferredProviders.calendar` (spec 1 User; docs/decisions.md): with writable calendars of several
 * providers connected, a new event the assistant names no calendar for goes to the preferred
 * provider's (its primary first); without a preference, the primary among them as before. The
 * connections are stored rows (what a connect leaves): the choice reads only the store.
 */
const app = useTestServer();

async function userWithTwoProviders() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const db = app().database.db;
  const connect = async (provider: 'caldav' | 'google', primary: boolean) => {
    const [c] = await db.insert(calendarConnections).values({ accountId: acct.accountId, userId: u.id, provider, url: provider === 'caldav' ? 'https://dav.example/' : null }).returning();
    const [cal] = await db.insert(calendars).values({ connectionId: c!.id, userId: u.id, remoteId: `${provider}-main`, name: `${provider} calendar`, primary }).returning();
    return cal!.id;
  };
  const davCalendar = await connect('caldav', true);
  const googleCalendar = await connect('google', false);
  return { acct, u, key: await userKey(app(), acct, u.id), davCalendar, googleCalendar };
}

describe('preferredProviders.calendar', () => {
  it('sends a new event to the preferred provider’s calendar; without it, the primary; a provider Steward does not know is 400', async () => {
    const w = await userWithTwoProviders();
    const db = app().database.db;
    expect((await defaultCalendar(db, w.u.id))?.calendar.id).toBe(w.davCalendar);
    const set = await call(app(), '/profile', { method: 'PATCH', key: w.key, body: { preferredProviders: { calendar: 'google', video: 'zoom' } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.user.preferredProviders).toEqual({ calendar: 'google', video: 'zoom' });
    expect((await defaultCalendar(db, w.u.id))?.calendar.id).toBe(w.googleCalendar);
    const bad = await call(app(), '/profile', { method: 'PATCH', key: w.key, body: { preferredProviders: { calendar: 'yahoo' } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('preferredProviders.calendar');
    await call(app(), '/profile', { method: 'PATCH', key: w.key, body: { preferredProviders: { calendar: null } } });
    expect((await defaultCalendar(db, w.u.id))?.calendar.id).toBe(w.davCalendar);
  });
});
