import { describe, expect, it } from 'vitest';
import { SupervisionMatrixResponse } from '@/server/policy/autonomy-contracts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * timeBoxedWindowMin is a number of minutes (spec 2: "number, minutes"), so half a minute is a
 * window; a cell set to time-boxed without one keeps the window it has (the user's own, else the
 * one inherited) or takes the default (60 minutes), instead of being refused.
 */
const app = useTestServer();

async function person() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  return { ...u, key: await userKey(app(), acct, u.id) };
}
const url = (id: string) => `/users/${id}/preferences/supervision/matrix`;
const patch = (p: { id: string; key: string }, matrix: Record<string, unknown>) => call(app(), url(p.id), { key: p.key, method: 'PATCH', body: { matrix } });
const cell = async (p: { id: string; key: string }, a: string) => SupervisionMatrixResponse.parse((await call(app(), url(p.id), { key: p.key })).body).supervisionMatrix.matrix[a];

describe('time-boxed windows', () => {
  it('takes fractions of a minute, and a time-boxed cell without a window keeps its window or takes the default', async () => {
    const p = await person();
    const half = await patch(p, { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 0.5 } });
    expect(half.status, JSON.stringify(half.body)).toBe(200);
    expect(await cell(p, 'calendar')).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 0.5, source: 'user' });

    // Back to manual and time-boxed again without a window: the window the cell had stays.
    expect((await patch(p, { calendar: { mode: 'manual' } })).status).toBe(200);
    expect((await patch(p, { calendar: { mode: 'time-boxed' } })).status).toBe(200);
    expect(await cell(p, 'calendar')).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 0.5 });

    // A cell that never had one takes the default.
    const fresh = await patch(p, { drive: { mode: 'time-boxed' } });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(await cell(p, 'drive')).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 60 });

    for (const bad of [0, -1, 10_081, 'ten']) {
      const res = await patch(p, { messaging: { mode: 'time-boxed', timeBoxedWindowMin: bad } });
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.error).toContain('matrix.messaging.timeBoxedWindowMin');
    }
  });

  it('recipient exceptions take fractional windows and a default one too', async () => {
    const p = await person();
    const post = (body: unknown) => call(app(), `/users/${p.id}/preferences/supervision/exceptions`, { key: p.key, body });
    const half = await post({ match: { kind: 'domain', value: 'partner.example' }, mode: 'time-boxed', timeBoxedWindowMin: 1.5, appliesTo: ['email_as_assistant'] });
    expect(half.status, JSON.stringify(half.body)).toBe(201);
    expect(half.body.recipientException.timeBoxedWindowMin).toBe(1.5);
    const none = await post({ match: { kind: 'domain', value: 'other.example' }, mode: 'time-boxed', appliesTo: ['email_as_assistant'] });
    expect(none.status, JSON.stringify(none.body)).toBe(201);
    expect(none.body.recipientException.timeBoxedWindowMin).toBe(60);
  });
});
