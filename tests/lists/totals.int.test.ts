import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * `total` comes from counters kept in the writing transaction, and pages start from remembered
 * boundaries: what a user sees must stay exactly what counting and offsetting would give,
 * through creates, updates, deletes, merges, team visibility and concurrent writes.
 */

const app = useTestServer();

async function twoTeammates() {
  const acct = await newAccount(app());
  const a = await newUser(app(), acct);
  const b = await newUser(app(), acct, { teamId: a.teamId });
  return { acct, a: { ...a, key: await userKey(app(), acct, a.id) }, b: { ...b, key: await userKey(app(), acct, b.id) } };
}

/** Every item of a list, walked page by page in order, and the totals each page reported. */
async function walk(path: string, key: string, field: string, perPage = 3) {
  const ids: string[] = [];
  const totals = new Set<number>();
  for (let page = 1; page < 100; page++) {
    const res = await call(app(), `${path}${path.includes('?') ? '&' : '?'}perPage=${perPage}&page=${page}`, { key });
    expect(res.status).toBe(200);
    totals.add(res.body.total);
    if (!res.body[field].length) break;
    ids.push(...res.body[field].map((x: { id: string }) => x.id));
  }
  return { ids, totals: [...totals] };
}

const memory = (key: string, body: Record<string, unknown>) => call(app(), '/memories', { key, body });

describe('list totals and pages', () => {
  it('memories: own plus the team’s, counted once; totals follow creates, tag changes, moves and deletes', async () => {
    const { a, b } = await twoTeammates();
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push((await memory(a.key, { content: `mine ${i}`, tags: i % 2 ? ['profile'] : ['general'] })).body.memory);
    const myTeamOne = (await memory(a.key, { content: 'mine, for the team', scope: 'team' })).body.memory;
    await memory(b.key, { content: 'theirs, for the team', scope: 'team', tags: ['profile'] });
    await memory(b.key, { content: 'theirs alone' });

    // a sees 6 own (one team-scoped, not counted twice) + 1 of b's team memories.
    const all = await walk('/memories', a.key, 'memories');
    expect(all.totals).toEqual([7]);
    expect(new Set(all.ids).size).toBe(7);
    expect((await call(app(), '/memories?tags=profile', { key: a.key })).body.total).toBe(3);
    expect((await call(app(), '/memories?scope=team', { key: a.key })).body.total).toBe(2);
    expect((await call(app(), '/memories?scope=user', { key: a.key })).body.total).toBe(5);
    expect((await call(app(), '/memories', { key: b.key })).body.total).toBe(3);

    // Retagging moves a memory between filtered totals; moving it to the team changes scope counts.
    await call(app(), `/memories/${mine[0].id}`, { method: 'PUT', key: a.key, body: { tags: ['profile'] } });
    expect((await call(app(), '/memories?tags=profile', { key: a.key })).body.total).toBe(4);
    await call(app(), `/memories/${mine[1].id}`, { method: 'PUT', key: a.key, body: { scope: 'team' } });
    expect((await call(app(), '/memories?scope=team', { key: a.key })).body.total).toBe(3);
    expect((await call(app(), '/memories', { key: b.key })).body.total).toBe(4);
    await call(app(), `/memories/${myTeamOne.id}`, { method: 'DELETE', key: a.key });
    expect((await call(app(), '/memories', { key: a.key })).body.total).toBe(6);
    expect((await call(app(), '/memories', { key: b.key })).body.total).toBe(3);
    // A filter the counters do not keep (two tags, a search) is counted, and agrees.
    expect((await call(app(), '/memories?tags=profile,general', { key: a.key })).body.total).toBe(6);
    expect((await call(app(), '/memories?search=MINE', { key: a.key })).body.total).toBe(5);
  });

  it('concurrent creates are all counted', async () => {
    const { a } = await twoTeammates();
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => memory(a.key, { content: `burst ${i}` })));
    expect(created.every((r) => r.status === 201)).toBe(true);
    const all = await walk('/memories', a.key, 'memories', 5);
    expect(all.totals).toEqual([12]);
    expect(new Set(all.ids).size).toBe(12);
  });

  it('pages walked in order are the offset pages, and a write between two reads moves the pages', async () => {
    const { a } = await twoTeammates();
    for (let i = 0; i < 7; i++) await memory(a.key, { content: `m${i}` });
    const everything = (await call(app(), '/memories?perPage=100', { key: a.key })).body.memories.map((m: { id: string }) => m.id);
    expect((await walk('/memories', a.key, 'memories', 2)).ids).toEqual(everything);
    // Page 3 after the walk starts from a remembered boundary; a new memory shifts every page by one.
    const before = (await call(app(), '/memories?perPage=2&page=3', { key: a.key })).body.memories.map((m: { id: string }) => m.id);
    expect(before).toEqual(everything.slice(4, 6));
    const fresh = (await memory(a.key, { content: 'newest' })).body.memory.id;
    const after = (await call(app(), '/memories?perPage=2&page=3', { key: a.key })).body;
    expect(after.memories.map((m: { id: string }) => m.id)).toEqual([fresh, ...everything].slice(4, 6));
    expect(after.total).toBe(8);
    // A deletion before the page shifts it back.
    await call(app(), `/memories/${everything[0]}`, { method: 'DELETE', key: a.key });
    const again = (await call(app(), '/memories?perPage=2&page=3', { key: a.key })).body.memories.map((m: { id: string }) => m.id);
    expect(again).toEqual([fresh, ...everything.slice(1)].slice(4, 6));
    // A change to a filtered field moves filtered pages too: page 1 of the tag leaves a boundary
    // after its one row; tagging a newer memory puts that row on page 2.
    for (const id of [everything[6], everything[5]]) await call(app(), `/memories/${id}`, { method: 'PUT', key: a.key, body: { tags: ['profile'] } });
    const profilePage1 = (await call(app(), '/memories?perPage=1&page=1&tags=profile', { key: a.key })).body.memories.map((m: { id: string }) => m.id);
    expect(profilePage1).toEqual([everything[5]]);
    await call(app(), `/memories/${everything[4]}`, { method: 'PUT', key: a.key, body: { tags: ['profile'] } });
    const profilePage2 = (await call(app(), '/memories?perPage=1&page=2&tags=profile', { key: a.key })).body;
    expect(profilePage2.total).toBe(3);
    expect(profilePage2.memories.map((m: { id: string }) => m.id)).toEqual([everything[5]]);
  });

  it('contacts: totals by status and tag follow updates, deletes, merges and bulk imports', async () => {
    const { a } = await twoTeammates();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await call(app(), '/contacts', { key: a.key, body: { email: `c${i}@example.com`, tags: i < 2 ? ['vip'] : [] } })).body.contact.id);
    const imported = await call(app(), '/contacts/bulk-import', { key: a.key, body: { contacts: [{ email: 'i1@example.com' }, { email: 'i2@example.com' }] } });
    expect(imported.body.bulkImport.created).toBe(2);
    expect((await call(app(), '/contacts', { key: a.key })).body.total).toBe(6);
    expect((await call(app(), '/contacts?tags=vip', { key: a.key })).body.total).toBe(2);
    expect((await call(app(), '/contacts?sourceType=imported', { key: a.key })).body.total).toBe(2);
    await call(app(), `/contacts/${ids[0]}`, { method: 'PUT', key: a.key, body: { status: 'archived' } });
    expect((await call(app(), '/contacts?status=archived', { key: a.key })).body.total).toBe(1);
    expect((await call(app(), '/contacts?status=active', { key: a.key })).body.total).toBe(5);
    const merged = await call(app(), `/contacts/${ids[2]}/merge`, { key: a.key, body: { mergeContactId: ids[3] } });
    expect(merged.status).toBe(200);
    expect((await call(app(), '/contacts', { key: a.key })).body.total).toBe(5);
    await call(app(), `/contacts/${ids[1]}`, { method: 'DELETE', key: a.key });
    const all = await walk('/contacts', a.key, 'contacts', 2);
    expect(all.totals).toEqual([4]);
    expect((await call(app(), '/contacts?tags=vip', { key: a.key })).body.total).toBe(1);
    expect((await call(app(), '/contacts?status=archived&tags=vip', { key: a.key })).body.total).toBe(1);
  });

  it('users and members: totals follow provisioning, status changes, joining and leaving, deletion', async () => {
    const acct = await newAccount(app());
    const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Org' } })).body.organization;
    const members = `/organizations/${org.id}/members`;
    const people = [];
    for (let i = 0; i < 3; i++) people.push((await call(app(), members, { key: acct.key, body: { email: `p${i}@org.example` } })).body.member);
    const outsider = await newUser(app(), acct);
    expect((await call(app(), members, { key: acct.key })).body.total).toBe(3);
    expect((await call(app(), '/users', { key: acct.key })).body.total).toBe(4);
    expect((await call(app(), `/users?organizationId=${org.id}`, { key: acct.key })).body.total).toBe(3);
    const suspended = await call(app(), `/users/${people[0].id}`, { method: 'PUT', key: acct.key, body: { status: 'suspended' } });
    expect(suspended.body).toMatchObject({ ok: true, user: { status: 'suspended' } });
    expect((await call(app(), '/users?status=suspended', { key: acct.key })).body.total).toBe(1);
    expect((await call(app(), '/users?status=active', { key: acct.key })).body.total).toBe(3);
    await call(app(), `${members}/${people[1].id}`, { method: 'DELETE', key: acct.key });
    expect((await call(app(), members, { key: acct.key })).body.total).toBe(2);
    await call(app(), `/users/${outsider.id}`, { method: 'DELETE', key: acct.key });
    const all = await walk('/users', acct.key, 'users', 2);
    expect(all.totals).toEqual([3]);
    expect(all.ids).not.toContain(outsider.id);
    // Another account's counters never leak in.
    const other = await newAccount(app(), 'Other');
    expect((await call(app(), `/users?organizationId=${org.id}`, { key: other.key })).body.total).toBe(0);
  });
});
