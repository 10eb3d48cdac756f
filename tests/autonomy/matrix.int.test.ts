import { describe, expect, it } from 'vitest';
import { ExceptionEnvelope, ExceptionListResponse, SupervisionMatrixResponse } from '@/server/policy/autonomy-contracts';
import { call, newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { exceptionsUrl, matrixUrl, patchMatrix, person } from './fixtures';

const app = useTestServer();

async function setup() {
  const acct = await newAccount(app());
  return { acct, a: await person(app(), acct), b: await person(app(), acct) };
}

const read = async (p: { id: string; key: string }) => {
  const res = await call(app(), matrixUrl(p.id), { key: p.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return SupervisionMatrixResponse.parse(res.body).supervisionMatrix;
};

describe('supervision matrix', () => {
  it('a new user reads the platform defaults (third_party_skills manual, undo 30 s), nothing locked, never updated', async () => {
    const { a } = await setup();
    const m = await read(a);
    const modes = Object.fromEntries(Object.entries(m.matrix).map(([k, c]) => [k, c.mode]));
    expect(modes).toEqual({
      email_as_user: 'manual',
      email_as_assistant: 'auto',
      messaging: 'auto',
      voice_call_as_assistant: 'auto',
      voice_call_as_user: 'manual',
      calendar: 'auto',
      files: 'auto',
      drive: 'auto',
      contacts: 'auto',
      third_party_skills: 'manual',
      website: 'manual',
    });
    expect(m.matrix.calendar).toEqual({ mode: 'auto', timeBoxedWindowMin: null, timeBoxedExpiry: 'execute', undoDelaySec: 30, source: 'default' });
    expect(m).toMatchObject({ matrixUpdatedAt: null, parentLockedCells: [], orgLockedCells: [], teamLockedCells: [], lockedValues: {} });
  });

  it('PATCH merges per cell and per field; null inherits again; the read shows the values in force', async () => {
    const { a } = await setup();
    const first = await patchMatrix(app(), a, { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 15, timeBoxedExpiry: 'cancel' }, email_as_user: { mode: 'auto', undoDelaySec: 0 } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const m1 = SupervisionMatrixResponse.parse(first.body).supervisionMatrix;
    expect(m1.matrix.calendar).toEqual({ mode: 'time-boxed', timeBoxedWindowMin: 15, timeBoxedExpiry: 'cancel', undoDelaySec: 30, source: 'user' });
    expect(m1.matrix.email_as_user).toEqual({ mode: 'auto', timeBoxedWindowMin: null, timeBoxedExpiry: 'execute', undoDelaySec: 0, source: 'user' });
    expect(m1.matrix.messaging.source).toBe('default');
    expect(Date.parse(m1.matrixUpdatedAt!)).toBeGreaterThan(Date.now() - 60_000);

    // Only the fields sent change: the window and expiry stay.
    const second = await patchMatrix(app(), a, { calendar: { undoDelaySec: 120 } });
    expect(SupervisionMatrixResponse.parse(second.body).supervisionMatrix.matrix.calendar).toEqual({
      mode: 'time-boxed',
      timeBoxedWindowMin: 15,
      timeBoxedExpiry: 'cancel',
      undoDelaySec: 120,
      source: 'user',
    });
    // mode null: the cell inherits its mode again (here the default) and keeps the other fields.
    await patchMatrix(app(), a, { email_as_user: { mode: null } });
    // A null cell clears every field.
    await patchMatrix(app(), a, { calendar: null });
    const m = await read(a);
    expect(m.matrix.email_as_user).toEqual({ mode: 'manual', timeBoxedWindowMin: null, timeBoxedExpiry: 'execute', undoDelaySec: 0, source: 'default' });
    expect(m.matrix.calendar).toEqual({ mode: 'auto', timeBoxedWindowMin: null, timeBoxedExpiry: 'execute', undoDelaySec: 30, source: 'default' });
  });

  it('bad input is 400 naming each field, and nothing changes', async () => {
    const { a } = await setup();
    await patchMatrix(app(), a, { messaging: { mode: 'manual' } });
    const before = await read(a);
    const bad = await patchMatrix(app(), a, { messaging: { mode: 'sometimes', undoDelaySec: -1 }, faxing: { mode: 'auto' } });
    expect(bad.status).toBe(400);
    for (const f of ['matrix.messaging.mode', 'matrix.messaging.undoDelaySec', 'faxing']) expect(bad.body.error).toContain(f);
    expect((await patchMatrix(app(), a, { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 0 } })).body.error).toContain('matrix.calendar.timeBoxedWindowMin');
    expect((await call(app(), matrixUrl(a.id), { key: a.key, method: 'PATCH', body: {} })).body.error).toContain('matrix');
    expect(await read(a)).toEqual(before);
  });

  it('another user’s matrix and exceptions are 404 for a user key; the account key reaches every user', async () => {
    const { acct, a, b } = await setup();
    expect((await call(app(), matrixUrl(b.id), { key: a.key })).status).toBe(404);
    expect((await patchMatrix(app(), { id: b.id, key: a.key }, { calendar: { mode: 'manual' } })).status).toBe(404);
    expect((await call(app(), `${matrixUrl(b.id)}/reset`, { key: a.key, method: 'PUT' })).status).toBe(404);
    expect((await call(app(), exceptionsUrl(b.id), { key: a.key })).status).toBe(404);
    expect((await call(app(), exceptionsUrl(b.id), { key: a.key, body: { match: { kind: 'domain', value: 'x.org' }, mode: 'auto', appliesTo: ['messaging'] } })).status).toBe(404);
    expect((await read(b)).matrix.calendar.source).toBe('default');
    expect((await call(app(), matrixUrl(b.id), { key: acct.key, as: a.email })).status).toBe(404);
    const byAccount = await call(app(), matrixUrl(b.id), { key: acct.key, method: 'PATCH', body: { matrix: { calendar: { mode: 'manual' } } } });
    expect(byAccount.status).toBe(200);
    expect((await read(b)).matrix.calendar.mode).toBe('manual');
    expect((await call(app(), matrixUrl('0'.repeat(24)), { key: acct.key })).status).toBe(404);
  });

  it('recipient exceptions: create (201), list newest first, delete; another user’s exception is 404', async () => {
    const { a, b } = await setup();
    const created = await call(app(), exceptionsUrl(a.id), {
      key: a.key,
      body: { label: 'Partners', match: { kind: 'domain', value: 'Partner.Example' }, mode: 'time-boxed', timeBoxedWindowMin: 10, appliesTo: ['email_as_assistant', 'messaging'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ex = ExceptionEnvelope.parse(created.body).recipientException;
    expect(ex).toMatchObject({ label: 'Partners', match: { kind: 'domain', value: 'partner.example' }, mode: 'time-boxed', timeBoxedWindowMin: 10, timeBoxedExpiry: null, undoDelaySec: null, appliesTo: ['email_as_assistant', 'messaging'] });
    const second = await call(app(), exceptionsUrl(a.id), { key: a.key, body: { match: { kind: 'address', value: 'Boss@Corp.example' }, mode: 'manual', appliesTo: ['email_as_user'] } });
    expect(second.body.recipientException).toMatchObject({ label: 'boss@corp.example', match: { kind: 'address', value: 'boss@corp.example' } });
    const listed = ExceptionListResponse.parse((await call(app(), exceptionsUrl(a.id), { key: a.key })).body).recipientExceptions;
    expect(listed.map((e) => e.id)).toEqual([second.body.recipientException.id, ex.id]);

    expect((await call(app(), `${exceptionsUrl(b.id)}/${ex.id}`, { key: b.key, method: 'DELETE' })).status).toBe(404);
    expect((await call(app(), `${exceptionsUrl(a.id)}/${ex.id}`, { key: b.key, method: 'DELETE' })).status).toBe(404);
    const deleted = await call(app(), `${exceptionsUrl(a.id)}/${ex.id}`, { key: a.key, method: 'DELETE' });
    expect(deleted.body).toEqual({ ok: true, recipientException: { id: ex.id, deleted: true } });
    expect((await call(app(), `${exceptionsUrl(a.id)}/${ex.id}`, { key: a.key, method: 'DELETE' })).status).toBe(404);
    expect((await call(app(), exceptionsUrl(a.id), { key: a.key })).body.recipientExceptions).toHaveLength(1);
  });

  it('a bad exception is 400 naming each field', async () => {
    const { a } = await setup();
    const post = (body: unknown) => call(app(), exceptionsUrl(a.id), { key: a.key, body });
    const empty = await post({ match: { kind: 'domain', value: 'https://x.org/path' }, mode: 'auto', appliesTo: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain('match.value');
    expect(empty.body.error).toContain('appliesTo');
    const more = await post({ match: { kind: 'cidr', value: '10.0.0.0/8' }, mode: 'later', appliesTo: ['faxing'] });
    expect(more.status).toBe(400);
    for (const f of ['match', 'mode', 'appliesTo.0']) expect(more.body.error).toContain(f);
    const noWindow = await post({ match: { kind: 'address', value: 'not an address' }, mode: 'time-boxed', appliesTo: ['messaging', 'messaging'] });
    for (const f of ['match.value', 'appliesTo']) expect(noWindow.body.error).toContain(f);
    expect((await post({ match: { kind: 'address', value: '+33612345678' }, mode: 'auto', appliesTo: ['messaging'] })).status).toBe(201);
    expect((await call(app(), exceptionsUrl(a.id), { key: a.key })).body.recipientExceptions).toHaveLength(1);
  });

  it('reset clears the user’s cells and removes every exception', async () => {
    const { a, b } = await setup();
    await patchMatrix(app(), a, { calendar: { mode: 'manual' }, website: { mode: 'auto' } });
    await patchMatrix(app(), b, { calendar: { mode: 'manual' } });
    for (const p of [a, b]) await call(app(), exceptionsUrl(p.id), { key: p.key, body: { match: { kind: 'domain', value: 'x.org' }, mode: 'auto', appliesTo: ['messaging'] } });
    const reset = await call(app(), `${matrixUrl(a.id)}/reset`, { key: a.key, method: 'PUT' });
    expect(reset.status).toBe(200);
    const m = SupervisionMatrixResponse.parse(reset.body).supervisionMatrix;
    expect(Object.values(m.matrix).every((c) => c.source === 'default')).toBe(true);
    expect(m.matrix.website.mode).toBe('manual');
    expect(m.matrixUpdatedAt).not.toBeNull();
    expect((await call(app(), exceptionsUrl(a.id), { key: a.key })).body.recipientExceptions).toEqual([]);
    // The other user keeps theirs.
    expect((await read(b)).matrix.calendar.source).toBe('user');
    expect((await call(app(), exceptionsUrl(b.id), { key: b.key })).body.recipientExceptions).toHaveLength(1);
  });

  it('the OpenAPI document lists the autonomy endpoints, the undocumented ones included', async () => {
    const doc = (await call(app(), '/openapi.json')).body;
    expect(Object.keys(doc.paths[matrixUrl('{userId}')])).toEqual(expect.arrayContaining(['get', 'patch']));
    expect(doc.paths[`${exceptionsUrl('{userId}')}`].get.summary).toContain('recipient exceptions');
    expect(doc.paths[`${exceptionsUrl('{userId}')}/{exceptionId}`].delete).toBeDefined();
  });
});
