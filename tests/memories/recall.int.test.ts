import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { recallForRun, memoriesMessage } from '@/server/agent/runtime/memories';
import { indexFileTexts } from '@/server/files/recall';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { storeIncomingFile } from '@/server/files/store';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';
import { newChat, openStream } from '../chats/turn-harness';
import { actorOf, seedMemories } from './seed';

/*
 * Recall (spec 6): the memories that reach a task run and a chat turn are chosen by relevance to
 * what it is about, then pinned ones always, then recency, within STEWARD_MEMORY_CONTEXT_CHARS;
 * each with its id; structured memories rendered; team memories by the visibility rules; never
 * another user's; expired date memories left out; contacts the subject names and files whose
 * text matches join within the same budget. Checked in what the model is sent, end to end, and
 * in recallForRun itself.
 */

const h = useRunHarness();
const { app, db } = h;
const text = (messages: any[]) => messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

beforeAll(() => useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-recall-')))));

async function remember(key: string, body: Record<string, unknown>) {
  const res = await call(app(), '/memories', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.memory.id as string;
}

/** What recall gives a run about `about` for this user, as the model would read it. */
async function recalled(acct: AccountFixture, userId: string, about: string, recent: string[] = [], budget?: number) {
  const actor = await actorOf(db(), acct.accountId, userId);
  const m = await recallForRun(db(), actor, { about, recent }, new Date(), budget);
  return { m, message: memoriesMessage(m) ?? '' };
}

describe('recall in a run and a turn', () => {
  it('the oldest of thousands of memories reaches a task run and a chat turn when it is the relevant one, with its id', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const target = await remember(p.key, { content: 'Grandma Rosa’s lasagna recipe: ricotta, fresh basil, three layers of pasta, bake 45 minutes' });
    await seedMemories(db(), { accountId: acct.accountId, userId: p.id }, 3_000);

    h.state.llm.enqueue({ text: 'On it.', toolCalls: [{ name: 'complete_task', arguments: { summary: 'ok' } }] });
    const { runId } = await h.startTask(p, { title: 'Cook the lasagna for Sunday lunch', description: 'Use grandma’s recipe' });
    await h.ended(runId);
    const sent = text(h.state.llm.requests[0].messages);
    expect(sent).toContain(`[${target}] Grandma Rosa’s lasagna recipe`);
    // Within the budget, recent memories are there too, but not all 3,000.
    expect(sent.length).toBeLessThan(30_000);

    h.state.llm.reset();
    h.state.llm.enqueue({ text: 'Ricotta and basil.' });
    const chatId = await newChat(app(), p);
    await openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'What goes into the lasagna again?' } } }).done;
    expect(text(h.state.llm.requests[0].messages)).toContain(`[${target}] Grandma Rosa’s lasagna recipe`);
  });

  it('a pinned memory is always present, whatever the run is about; an expired one is not, an upcoming one is', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const day = 86_400_000;
    const pinned = await remember(p.key, { content: 'Never book flights with overnight layovers', pinned: true });
    const expired = await remember(p.key, { content: 'Staying at the Hotel Miramar this week', tags: ['date-memory'], startDate: new Date(Date.now() - 5 * day).toISOString(), endDate: new Date(Date.now() - day).toISOString() });
    const upcoming = await remember(p.key, { content: 'Hotel Bellevue booked for next month', tags: ['date-memory'], startDate: new Date(Date.now() + 20 * day).toISOString() });
    await seedMemories(db(), { accountId: acct.accountId, userId: p.id }, 3_000);
    const { m, message } = await recalled(acct, p.id, 'Which hotel am I staying at?');
    expect(message).toContain(`[${pinned}] Never book flights`);
    expect(m.trusted.pinned).toHaveLength(1);
    expect(message).toContain(`[${upcoming}] Hotel Bellevue`);
    expect(message).not.toContain(expired);
    expect(message).not.toContain('Miramar');

    // The same in a run about something else entirely.
    h.state.llm.enqueue({ text: 'Done.', toolCalls: [{ name: 'complete_task', arguments: { summary: 'ok' } }] });
    const { runId } = await h.startTask(p, { title: 'Order printer paper' });
    await h.ended(runId);
    expect(text(h.state.llm.requests[0].messages)).toContain(`[${pinned}] Never book flights`);
  });

  it('renders a structured memory readably; stays within STEWARD_MEMORY_CONTEXT_CHARS', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const id = await remember(p.key, {
      content: 'Frequent flyer account',
      kind: 'structured',
      resourceType: 'loyalty',
      data: { airline: 'Lufthansa', memberNumber: 'LH-99812', status: { tier: 'Gold', until: '2026-03' } },
    });
    const { message } = await recalled(acct, p.id, 'Book a Lufthansa flight to Munich');
    // Keys in the order jsonb keeps them; each read out, nested ones by their path.
    const line = message.split('\n').find((l) => l.startsWith(`- [${id}] Frequent flyer account | loyalty: `))!;
    expect(line).toBeDefined();
    for (const part of ['airline: Lufthansa', 'member number: LH-99812', 'status.tier: Gold', 'status.until: 2026-03']) expect(line).toContain(part);

    await seedMemories(db(), { accountId: acct.accountId, userId: p.id }, 500);
    const small = await recalled(acct, p.id, 'Book a Lufthansa flight to Munich', [], 2_000);
    const lines = [...small.m.trusted.pinned, ...small.m.trusted.relevant, ...small.m.trusted.recent];
    expect(lines.reduce((n, l) => n + l.length + 1, 0)).toBeLessThanOrEqual(2_000);
    expect(small.message).toContain(`[${id}]`);
    expect(small.m.trusted.recent.length).toBeGreaterThan(0);
  });

  it('never recalls another user’s memories; a teammate’s team memories follow their visibility', async () => {
    const acct = await newAccount(app());
    const a = await h.person(acct);
    const teammate = await newUser(app(), acct, { teamId: a.teamId });
    const teammateKey = await userKey(app(), acct, teammate.id);
    const stranger = await newUser(app(), acct);
    const strangerKey = await userKey(app(), acct, stranger.id);
    const mine = await remember(a.key, { content: 'The Zurich offsite budget is 40k' });
    const shared = await remember(teammateKey, { content: 'Zurich offsite venue is the Dolder', scope: 'team' });
    const hidden = await remember(teammateKey, { content: 'Zurich offsite: I may not attend', scope: 'team', visibility: 'author_only' });
    const theirs = await remember(strangerKey, { content: 'Zurich offsite secret of another user' });
    const { message } = await recalled(acct, a.id, 'Plan the Zurich offsite');
    expect(message).toContain(mine);
    expect(message).toContain(shared);
    expect(message).not.toContain(hidden);
    expect(message).not.toContain(theirs);
    expect(message).not.toContain('secret of another user');

    // End to end too: the stranger's relevant memory never reaches the model.
    h.state.llm.enqueue({ text: 'Planned.', toolCalls: [{ name: 'complete_task', arguments: { summary: 'ok' } }] });
    const { runId } = await h.startTask(a, { title: 'Plan the Zurich offsite' });
    await h.ended(runId);
    const sent = text(h.state.llm.requests[0].messages);
    expect(sent).toContain('Zurich offsite budget');
    expect(sent).not.toContain('secret of another user');
  });

  it('a contact the subject names joins, with what a memory calls them by their role; a file whose text matches is named, not quoted', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const contact = await call(app(), '/contacts', { key: p.key, body: { name: 'Priya Raman', email: 'priya@smiles.test', title: 'Dentist' } });
    expect(contact.status, JSON.stringify(contact.body)).toBe(201);
    const byRole = await remember(p.key, { content: 'My dentist only takes appointments before noon' });
    await seedMemories(db(), { accountId: acct.accountId, userId: p.id }, 2_000);
    const stored = await storeIncomingFile(db(), { accountId: acct.accountId, userId: p.id }, { name: 'insurance-policy.txt', mimeType: 'text/plain', bytes: Buffer.from('Dental insurance policy: cleanings covered twice a year, orthodontics excluded.') });
    expect('file' in stored).toBe(true);
    await indexFileTexts(db());

    const { m, message } = await recalled(acct, p.id, 'Call Priya to book a cleaning — is it covered by my dental insurance?');
    expect(m.contacts).toHaveLength(1);
    expect(message).toContain(`Priya Raman <priya@smiles.test>: Dentist [contact ${contact.body.contact.id}]`);
    expect(message).toContain(`[${byRole}] My dentist only takes appointments`);
    const fileId = 'file' in stored ? stored.file.id : '';
    expect(message).toContain(`insurance-policy.txt (text/plain) [file ${fileId}]`);
    // The document's words stay out of the context (read_file reads them, and marks the run).
    expect(message).not.toContain('orthodontics');
  });
});
