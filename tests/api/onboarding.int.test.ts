import { describe, expect, it } from 'vitest';
import { SchedulingResponse } from '@/server/users/scheduling-contracts';
import { call, newAccount, newUser, uniqueEmail } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function freshUser() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct, { onboard: false });
  return { acct, u, as: { key: acct.key, as: u.email } };
}

describe('onboarding', () => {
  it('answers 428 to user calls until setup is finished, except the exemptions', async () => {
    const { u, as } = await freshUser();
    const blocked = await call(app(), `/users/${u.id}`, as);
    expect(blocked.status).toBe(428);
    expect(blocked.body.error_code).toBe('onboarding_required');
    expect((await call(app(), '/me', as)).status).toBe(428);
    expect((await call(app(), '/api-keys', { ...as, body: { label: 'x' } })).status).toBe(428);

    expect((await call(app(), '/profile', as)).status).toBe(200);
    expect((await call(app(), `/users/${u.id}/preferences/scheduling`, as)).status).toBe(200);
    expect((await call(app(), '/api-keys', as)).status).toBe(200);
  });

  it('mark-onboarded names what is missing, then succeeds once timezone and working hours are saved', async () => {
    const { u, as } = await freshUser();
    const early = await call(app(), '/onboarding/mark-onboarded', { ...as, body: {} });
    expect(early.status).toBe(400);
    expect(early.body.error).toContain('timezone');
    expect(early.body.error).toContain('workingHours');

    const tz = await call(app(), '/profile', { ...as, method: 'PATCH', body: { timezone: 'America/New_York', firstName: 'Ada' } });
    expect(tz.status).toBe(200);
    expect(tz.body.user).toMatchObject({ timezone: 'America/New_York', firstName: 'Ada', onboarded: false });
    const half = await call(app(), '/onboarding/mark-onboarded', { ...as, body: {} });
    expect(half.status).toBe(400);
    expect(half.body.error).not.toContain('timezone');

    await call(app(), `/users/${u.id}/preferences/scheduling`, {
      ...as,
      method: 'PUT',
      body: { schedulingPreferences: { availability: { workingHours: { FR: [{ start: '08:00', end: '12:00' }] } } } },
    });
    expect(await call(app(), '/onboarding/mark-onboarded', { ...as, body: {} })).toMatchObject({ status: 200, body: { ok: true } });
    expect((await call(app(), `/users/${u.id}`, as)).status).toBe(200);
    expect((await call(app(), '/profile', as)).body.user.onboarded).toBe(true);
  });

  it('rejects a timezone that is not IANA', async () => {
    const { as } = await freshUser();
    const res = await call(app(), '/profile', { ...as, method: 'PATCH', body: { timezone: 'Mars/Olympus' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('timezone');
  });

  it('an account key without X-User-Email cannot use /profile', async () => {
    const { acct } = await freshUser();
    expect((await call(app(), '/profile', { key: acct.key })).status).toBe(401);
  });
});

describe('scheduling preferences', () => {
  it('PUT replaces the object: omitted fields return to defaults, omitted workingHours keeps the saved hours', async () => {
    const { u, as } = await freshUser();
    const url = `/users/${u.id}/preferences/scheduling`;
    const initial = SchedulingResponse.parse((await call(app(), url, as)).body);
    expect(initial.workingHoursSaved).toBe(false);
    expect(initial.schedulingPreferences.availability.workingHours.MO).toEqual([{ start: '09:00', end: '17:00' }]);

    const first = await call(app(), url, {
      ...as,
      method: 'PUT',
      body: {
        schedulingPreferences: {
          availability: { workingHours: { MO: [{ start: '07:00', end: '11:00' }, { start: '13:00', end: '15:30' }] } },
          bufferBetweenMeetingsMin: 15,
        },
      },
    });
    expect(first.status).toBe(200);
    expect(first.body.schedulingPreferences.bufferBetweenMeetingsMin).toBe(15);
    expect(first.body.schedulingPreferences.availability.workingHours.TU).toEqual([]);

    const second = await call(app(), url, { ...as, method: 'PUT', body: { schedulingPreferences: { minimumNoticeMin: 120 } } });
    expect(second.status).toBe(200);
    expect(second.body.schedulingPreferences.bufferBetweenMeetingsMin).toBe(0);
    expect(second.body.schedulingPreferences.minimumNoticeMin).toBe(120);
    expect(second.body.schedulingPreferences.availability.workingHours.MO).toHaveLength(2);
    expect((await call(app(), url, as)).body).toEqual(second.body);
  });

  it('refuses working hours with no slot on any day, and bad times, naming the field', async () => {
    const { u, as } = await freshUser();
    const url = `/users/${u.id}/preferences/scheduling`;
    const empty = await call(app(), url, { ...as, method: 'PUT', body: { schedulingPreferences: { availability: { workingHours: { MO: [] } } } } });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain('workingHours');
    const bad = await call(app(), url, {
      ...as,
      method: 'PUT',
      body: { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '9am', end: '08:00' }] } } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('schedulingPreferences.availability.workingHours.MO.0.start');
    const stored = await call(app(), url, as);
    expect(stored.body.workingHoursSaved).toBe(false);
  });

  it("another user's preferences are 404; the account key reaches every user", async () => {
    const { acct, u } = await freshUser();
    const other = await newUser(app(), acct, { email: uniqueEmail('other') });
    expect((await call(app(), `/users/${u.id}/preferences/scheduling`, { key: acct.key, as: other.email })).status).toBe(404);
    expect((await call(app(), `/users/${u.id}/preferences/scheduling`, { key: acct.key })).status).toBe(200);
  });
});
