import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * A team-scoped memory is shared with the team's active members as its `visibility` says (spec 2,
 * Memory: author_only, coordinators, all): `all` every member, `coordinators` the team's owner and
 * admins, `author_only` its author alone. Lists, totals and single reads agree; a member who
 * leaves the team sees none of it any more.
 */
const app = useTestServer();

async function team() {
  const acct = await newAccount(app());
  const owner = await newUser(app(), acct);
  const member = await newUser(app(), acct, { teamId: owner.teamId });
  return {
    acct,
    owner: { ...owner, key: await userKey(app(), acct, owner.id) },
    member: { ...member, key: await userKey(app(), acct, member.id) },
  };
}

const list = async (key: string, qs = '') => {
  const res = await call(app(), `/memories${qs}`, { key });
  expect(res.status).toBe(200);
  return { contents: res.body.memories.map((m: { content: string }) => m.content).sort(), total: res.body.total as number };
};

describe('team-scoped memories', () => {
  it('are shared by visibility: all members, coordinators only, or the author alone', async () => {
    const { acct, owner, member } = await team();
    const write = (key: string, content: string, visibility?: string) => call(app(), '/memories', { key, body: { content, scope: 'team', ...(visibility ? { visibility } : {}) } });
    const shared = await write(member.key, 'Standup is at 9');
    const forLeads = await write(member.key, 'Salary review in May', 'coordinators');
    const mine = await write(member.key, 'My own reminder', 'author_only');
    expect([shared.status, forLeads.status, mine.status]).toEqual([201, 201, 201]);

    // The owner (a coordinator) sees `all` and `coordinators`, never another's `author_only`.
    expect(await list(owner.key)).toEqual({ contents: ['Salary review in May', 'Standup is at 9'], total: 2 });
    expect(await list(owner.key, '?scope=team')).toEqual({ contents: ['Salary review in May', 'Standup is at 9'], total: 2 });
    expect(await list(owner.key, '?tags=general')).toEqual({ contents: ['Salary review in May', 'Standup is at 9'], total: 2 });
    expect((await call(app(), `/memories/${mine.body.memory.id}`, { key: owner.key })).status).toBe(404);
    expect((await call(app(), `/memories/${forLeads.body.memory.id}`, { key: owner.key })).status).toBe(200);
    // The author sees all three.
    expect((await list(member.key)).total).toBe(3);

    // A plain member sees only what is shared with all.
    const third = await newUser(app(), acct, { teamId: owner.teamId });
    const thirdKey = await userKey(app(), acct, third.id);
    expect(await list(thirdKey)).toEqual({ contents: ['Standup is at 9'], total: 1 });
    expect((await call(app(), `/memories/${forLeads.body.memory.id}`, { key: thirdKey })).status).toBe(404);
    expect(await list(thirdKey, '?search=review')).toEqual({ contents: [], total: 0 });

    // Leaving the team (joining another) ends what it shared.
    const elsewhere = await newUser(app(), acct);
    expect((await call(app(), `/teams/${elsewhere.teamId}/members`, { key: acct.key, body: { userId: third.id } })).status).toBeLessThan(300);
    expect(await list(thirdKey)).toEqual({ contents: [], total: 0 });
  });
});
