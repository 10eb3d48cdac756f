import { describe, expect, it } from 'vitest';
import { setApprovalLock } from '@/server/policy/approval-locks';
import { SupervisionMatrixResponse } from '@/server/policy/autonomy-contracts';
import { TaskDetailEnvelope } from '@/server/tasks/contracts';
import { admin } from '../helpers/admin-cli';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { exceptionsUrl, matrixUrl, patchMatrix, teamInOrg } from './fixtures';

const app = useTestServer();
const db = () => app().database.db;
const dbUrl = () => app().database.pool.options.connectionString as string;

const read = async (p: { id: string; key: string }) => SupervisionMatrixResponse.parse((await call(app(), matrixUrl(p.id), { key: p.key })).body).supervisionMatrix;

describe('autonomy locks', () => {
  it('set-approval-lock: account and organization locks appear in parentLockedCells / orgLockedCells with their values; --clear removes them', async () => {
    const { acct, org, member } = await teamInOrg(app());
    const account = await admin(dbUrl(), 'set-approval-lock', '--account', acct.accountId, '--action', 'email_as_assistant', '--mode', 'manual');
    expect(account.code, account.stdout).toBe(0);
    expect(account.out).toEqual({ accountId: acct.accountId, organizationId: null, actionType: 'email_as_assistant', lock: { mode: 'manual', timeBoxedWindowMin: null } });
    const orgLock = await admin(dbUrl(), 'set-approval-lock', '--account', acct.accountId, '--organization', org.id, '--action', 'calendar', '--mode', 'time-boxed', '--window', '45');
    expect(orgLock.out.lock).toEqual({ mode: 'time-boxed', timeBoxedWindowMin: 45 });

    const m = await read(member);
    expect(m.parentLockedCells).toEqual(['email_as_assistant']);
    expect(m.orgLockedCells).toEqual(['calendar']);
    expect(m.teamLockedCells).toEqual([]);
    expect(m.lockedValues).toEqual({ email_as_assistant: { mode: 'manual', timeBoxedWindowMin: null }, calendar: { mode: 'time-boxed', timeBoxedWindowMin: 45 } });
    // With no value of their own the member inherits the locked cells from the tier that set them.
    expect(m.matrix.email_as_assistant).toMatchObject({ mode: 'manual', source: 'account' });
    expect(m.matrix.calendar).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 45, source: 'organization' });
    // A looser value of their own, saved before the lock, is overridden by it.
    await patchMatrix(app(), member, { calendar: null });
    await setApprovalLock(db(), { accountId: acct.accountId, organizationId: org.id, actionType: 'calendar', clear: true });
    await patchMatrix(app(), member, { calendar: { mode: 'auto' } });
    await setApprovalLock(db(), { accountId: acct.accountId, organizationId: org.id, actionType: 'calendar', mode: 'time-boxed', timeBoxedWindowMin: 45, clear: false });
    expect((await read(member)).matrix.calendar).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 45, source: 'lock' });

    // What it cannot store is refused (the CLI prints the error as its JSON line; checked here through the same service, faster).
    await expect(setApprovalLock(db(), { accountId: acct.accountId, actionType: 'calendar', mode: 'time-boxed', clear: false })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('--window') });
    await expect(setApprovalLock(db(), { accountId: acct.accountId, actionType: 'faxing', mode: 'auto', clear: false })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('--action') });
    await expect(setApprovalLock(db(), { accountId: acct.accountId, actionType: 'calendar', mode: 'often', clear: false })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('--mode') });
    await expect(setApprovalLock(db(), { accountId: acct.accountId, organizationId: 'nope', actionType: 'calendar', mode: 'auto', clear: false })).rejects.toMatchObject({ status: 404 });
    await expect(setApprovalLock(db(), { accountId: 'nope', actionType: 'calendar', mode: 'auto', clear: false })).rejects.toMatchObject({ status: 404 });
    expect((await read(member)).orgLockedCells).toEqual(['calendar']);

    const cleared = await admin(dbUrl(), 'set-approval-lock', '--account', acct.accountId, '--action', 'email_as_assistant', '--clear');
    expect(cleared.out).toMatchObject({ actionType: 'email_as_assistant', lock: null });
    const after = await read(member);
    expect(after.parentLockedCells).toEqual([]);
    expect(after.matrix.email_as_assistant).toMatchObject({ mode: 'auto', source: 'default' });
    expect(after.orgLockedCells).toEqual(['calendar']);
  }, 90_000);

  it('a PATCH that would loosen a locked cell is 403 naming it and changes nothing; tightening or matching is allowed', async () => {
    const { acct, org, member } = await teamInOrg(app());
    await setApprovalLock(db(), { accountId: acct.accountId, actionType: 'messaging', mode: 'time-boxed', timeBoxedWindowMin: 30, clear: false });
    await setApprovalLock(db(), { accountId: acct.accountId, organizationId: org.id, actionType: 'drive', mode: 'manual', clear: false });
    const before = await read(member);

    const loosen = await patchMatrix(app(), member, { calendar: { mode: 'manual' }, messaging: { mode: 'auto' }, drive: { mode: 'time-boxed', timeBoxedWindowMin: 5 } });
    expect(loosen.status).toBe(403);
    expect(loosen.body.error).toContain('matrix.messaging');
    expect(loosen.body.error).toContain('matrix.drive');
    expect(loosen.body.error).not.toContain('matrix.calendar');
    expect(loosen.body.lockedCells).toEqual(['messaging', 'drive']);
    // A shorter window releases sooner: looser too.
    expect((await patchMatrix(app(), member, { messaging: { mode: 'time-boxed', timeBoxedWindowMin: 10 } })).status).toBe(403);
    expect(await read(member)).toEqual(before);

    const tighten = await patchMatrix(app(), member, { messaging: { mode: 'manual' }, drive: { mode: 'manual', undoDelaySec: 5 } });
    expect(tighten.status, JSON.stringify(tighten.body)).toBe(200);
    const m = SupervisionMatrixResponse.parse(tighten.body).supervisionMatrix;
    expect(m.matrix.messaging).toMatchObject({ mode: 'manual', source: 'user' });
    expect(m.matrix.drive).toMatchObject({ mode: 'manual', undoDelaySec: 5, source: 'user' });
    // Clearing one's own value is not loosening: the cell falls back to the lock.
    const cleared = await patchMatrix(app(), member, { messaging: { mode: null } });
    expect(SupervisionMatrixResponse.parse(cleared.body).supervisionMatrix.matrix.messaging).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 30, source: 'account' });

    // An exception may not relax a locked action type either.
    const ex = await call(app(), exceptionsUrl(member.id), { key: member.key, body: { match: { kind: 'domain', value: 'x.org' }, mode: 'auto', appliesTo: ['calendar', 'drive'] } });
    expect(ex.status).toBe(403);
    expect(ex.body.error).toContain('appliesTo.drive');
    expect((await call(app(), exceptionsUrl(member.id), { key: member.key })).body.recipientExceptions).toEqual([]);
  });

  it('a team’s cells bind its members: teamLockedCells, inherited values, and 403 on loosening', async () => {
    const { acct, member, teamPolicyUrl } = await teamInOrg(app());
    const set = await call(app(), teamPolicyUrl, {
      key: acct.key,
      method: 'PATCH',
      body: { approvalSettings: { matrix: { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 20 }, contacts: { mode: 'manual' } } } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const m = await read(member);
    expect(m.teamLockedCells).toEqual(['calendar', 'contacts']);
    expect(m.lockedValues).toEqual({ calendar: { mode: 'time-boxed', timeBoxedWindowMin: 20 }, contacts: { mode: 'manual', timeBoxedWindowMin: null } });
    expect(m.matrix.calendar).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 20, source: 'team' });
    const loosen = await patchMatrix(app(), member, { calendar: { mode: 'auto' } });
    expect(loosen.status).toBe(403);
    expect(loosen.body.error).toContain('locked by the team');
    expect((await patchMatrix(app(), member, { calendar: { mode: 'manual' } })).status).toBe(200);

    // The team lifts its cell: the member's own choice stays, and may now loosen.
    await call(app(), teamPolicyUrl, { key: acct.key, method: 'PATCH', body: { approvalSettings: { matrix: { calendar: null } } } });
    expect((await patchMatrix(app(), member, { calendar: { mode: 'auto' } })).status).toBe(200);
    expect((await read(member)).teamLockedCells).toEqual(['contacts']);
  });

  it('GET /tasks/{taskId}: approvalLocks lists every binding cell; the task’s own mode stands where no lock is stricter', async () => {
    const { acct, org, member, teamPolicyUrl } = await teamInOrg(app());
    const hired = await call(app(), `/users/${member.id}/assistants`, { key: member.key, body: { name: 'Ada' } });
    const created = await call(app(), '/tasks', { key: member.key, body: { title: 'Plan', assistant: hired.body.assistant.id } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const taskUrl = `/tasks/${created.body.task.id}`;
    expect((await call(app(), taskUrl, { key: member.key, method: 'PUT', body: { approvalMode: 'auto' } })).status).toBe(200);
    const detail = async () => TaskDetailEnvelope.parse((await call(app(), taskUrl, { key: member.key })).body).task;
    expect(await detail()).toMatchObject({ effectiveApprovalMode: 'auto', approvalLocks: [] });

    await setApprovalLock(db(), { accountId: acct.accountId, actionType: 'email_as_user', mode: 'manual', clear: false });
    await setApprovalLock(db(), { accountId: acct.accountId, organizationId: org.id, actionType: 'website', mode: 'manual', clear: false });
    await call(app(), teamPolicyUrl, { key: acct.key, method: 'PATCH', body: { approvalSettings: { matrix: { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 20 } } } } });
    const locked = await detail();
    expect(locked.effectiveApprovalMode).toBe('auto');
    expect(locked.approvalLocks).toEqual([
      { actionType: 'email_as_user', mode: 'manual', source: 'account' },
      { actionType: 'website', mode: 'manual', source: 'org' },
      { actionType: 'calendar', mode: 'time-boxed', source: 'team' },
    ]);

    // When every action type is locked stricter than the task's mode, the mode shown rises to the loosest lock.
    const all = ['email_as_user', 'email_as_assistant', 'messaging', 'voice_call_as_assistant', 'voice_call_as_user', 'files', 'drive', 'contacts', 'third_party_skills', 'website'];
    for (const actionType of all) await setApprovalLock(db(), { accountId: acct.accountId, actionType, mode: 'manual', clear: false });
    expect((await detail()).effectiveApprovalMode).toBe('time-boxed');

    // Without a task mode each action follows the owner's matrix: nothing single to show.
    await call(app(), taskUrl, { key: member.key, method: 'PUT', body: { approvalMode: null } });
    expect((await detail()).effectiveApprovalMode).toBeNull();
  });
});
