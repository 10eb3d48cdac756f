import { describe, expect, it } from 'vitest';
import { setHostedDomain } from '@/server/hosted/accounts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { hostedCaller, procedureOutcome } from '../helpers/hosted-caller';
import { useTestServer } from '../helpers/server';

/*
 * The Memories page's procedures (server/trpc/routers/memories.ts): the person sees their own and
 * their teams' shared memories, searches them ranked, and changes, pins and deletes their own,
 * through the memories service as the session's user: a teammate's team memory is theirs to read,
 * not to change; another user's memory is not found.
 */

const app = useTestServer();
const signedIn = (host: string, userId: string) => hostedCaller(app(), host, userId);
const codeOf = procedureOutcome;

describe('the Memories page', () => {
  it('lists, searches, remembers, changes, pins and deletes, as the person', async () => {
    const acct = await newAccount(app(), 'Memories');
    const host = `memories-${Date.now().toString(36)}.steward.test`;
    await setHostedDomain(app().database.db, acct.accountId, host);
    const a = await newUser(app(), acct);
    const mate = await newUser(app(), acct, { teamId: a.teamId });
    const stranger = await newUser(app(), acct);
    const mateKey = await userKey(app(), acct, mate.id);
    const strangerKey = await userKey(app(), acct, stranger.id);
    const shared = (await call(app(), '/memories', { key: mateKey, body: { content: 'The team’s Slack channel for the Berlin trip is #berlin', scope: 'team' } })).body.memory.id;
    const theirs = (await call(app(), '/memories', { key: strangerKey, body: { content: 'Another user’s Berlin hotel' } })).body.memory.id;

    const page = await signedIn(host, a.id);
    const { memory } = await page.memories.create({ content: 'Hotel in Berlin: the Adlon, checking in Friday' });
    const listed = await page.memories.list({});
    expect(listed.memories.map((m) => [m.id, m.canChange])).toEqual([
      [memory.id, true],
      [shared, false],
    ]);
    const found = await page.memories.search({ q: 'Berlin hotel' });
    expect(found.memories[0]).toMatchObject({ id: memory.id, canChange: true });
    expect(found.memories.map((m) => m.id)).not.toContain(theirs);
    expect(found.memories.every((m) => typeof m.score === 'number')).toBe(true);

    await page.memories.update({ memoryId: memory.id, change: { pinned: true } });
    await page.memories.update({ memoryId: memory.id, change: { content: 'Hotel in Berlin: the Adlon, checking in Saturday' } });
    const [changed] = (await page.memories.list({})).memories;
    expect(changed).toMatchObject({ id: memory.id, pinned: true, content: 'Hotel in Berlin: the Adlon, checking in Saturday' });

    // A teammate's team memory: readable, not changeable; another user's: not found.
    expect(await codeOf(page.memories.update({ memoryId: shared, change: { pinned: true } }))).toBe('FORBIDDEN:403');
    expect(await codeOf(page.memories.remove({ memoryId: theirs }))).toBe('NOT_FOUND:404');
    expect(await codeOf(page.memories.search({ q: '' }))).toBe('BAD_REQUEST');

    await page.memories.remove({ memoryId: memory.id });
    expect((await page.memories.list({})).memories.map((m) => m.id)).toEqual([shared]);
    expect((await call(app(), `/memories/${theirs}`, { key: strangerKey })).status).toBe(200);
  });
});
