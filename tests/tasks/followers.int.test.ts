import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { taskActivities, tasks } from '@/db/schema';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { ListTasksResponse, TaskDetailEnvelope, TaskEnvelope } from '@/server/tasks/contracts';
import { composeServices } from '@/server/compose';
import { call, newAccount, newUser, uniqueEmail, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

composeServices();

/*
 * Followers (spec 2: a task's `followers` emails; spec 4: the owner is always a follower): a
 * user of the account whose verified email is a follower address reads the task and the files
 * its owner attached to it; writes stay the owner's; nobody else sees anything.
 */
const app = useTestServer();
const db = () => app().database.db;
beforeAll(() => useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-followers-')))));

async function person(acct: AccountFixture) {
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  return { ...u, acct, key, assistantId: hired.body.assistant.id as string };
}
type Person = Awaited<ReturnType<typeof person>>;

async function newTask(p: Person, body: Record<string, unknown> = {}) {
  const res = await call(app(), '/tasks', { key: p.key, body: { title: 'Plan the offsite', assistant: p.assistantId, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return TaskEnvelope.parse(res.body).task;
}

/** A second email address for the user, verified or not, as an account key adds one. */
async function secondEmail(p: Person, verified: boolean) {
  const value = uniqueEmail(verified ? 'alias' : 'claim');
  const res = await call(app(), '/identifiers', { key: p.acct.key, body: { type: 'email', value, userId: p.id, verified } });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return value;
}

/** A ready file of the user, through the three upload steps. */
async function upload(p: Person, content: string) {
  const up = await call(app(), '/drive-files/upload', { key: p.key, body: { name: 'agenda.txt', size: content.length, mimeType: 'text/plain' } });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  expect((await fetch(up.body.url, { method: 'PUT', headers: { 'Content-Type': up.body.contentType }, body: content })).status).toBe(200);
  expect((await call(app(), `/drive-files/${up.body.fileId}/confirm`, { key: p.key, body: { size: content.length } })).status).toBe(200);
  return up.body.fileId as string;
}

const download = (p: Person, fileId: string) => fetch(`${app().baseUrl}/drive-files/${fileId}/download`, { headers: { Authorization: `Bearer ${p.key}` } });

describe('followers of a task', () => {
  it('shows the owner as the first follower, once, whatever was sent', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const task = await newTask(a, { followers: ['Friend@Example.org', a.email.toUpperCase(), 'friend@example.org'] });
    expect(task.followers).toEqual([a.email, 'friend@example.org']);
    const alone = await newTask(a);
    expect(alone.followers).toEqual([a.email]);
    const got = TaskDetailEnvelope.parse((await call(app(), `/tasks/${task.id}`, { key: a.key })).body).task;
    expect(got.followers).toEqual([a.email, 'friend@example.org']);
    const listed = ListTasksResponse.parse((await call(app(), '/tasks', { key: a.key })).body).tasks;
    expect(listed.find((t) => t.id === alone.id)!.followers).toEqual([a.email]);
  });

  it('a follower reads the task and its usage and leaves feedback; every other write is 404 for them; it is not in their list', async () => {
    const acct = await newAccount(app());
    const [a, c, d] = [await person(acct), await person(acct), await person(acct)];
    const task = await newTask(a, { followers: [c.email] });

    const read = await call(app(), `/tasks/${task.id}`, { key: c.key });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(TaskDetailEnvelope.parse(read.body).task).toMatchObject({ id: task.id, owner: a.email, followers: [a.email, c.email] });
    expect((await call(app(), `/tasks/${task.id}/usage`, { key: c.key })).status).toBe(200);

    // Not a follower: nothing at all.
    for (const p of [`/tasks/${task.id}`, `/tasks/${task.id}/usage`, `/tasks/${task.id}/activities`]) {
      expect((await call(app(), p, { key: d.key })).status, p).toBe(404);
    }

    const writes: [string, string, unknown][] = [
      ['PUT', `/tasks/${task.id}`, { status: 'paused' }],
      ['POST', `/tasks/${task.id}/process`, { message: 'Go' }],
      ['POST', `/tasks/${task.id}/stop`, {}],
      ['POST', `/tasks/${task.id}/mark-done`, {}],
      ['DELETE', `/tasks/${task.id}`, undefined],
    ];
    for (const [method, p, body] of writes) {
      const res = await call(app(), p, { method, key: c.key, body });
      expect(res.status, `${method} ${p}: ${JSON.stringify(res.body)}`).toBe(404);
    }
    // Spec 2: only followers may leave feedback; each follower's is their own, the owner's stays the task's.
    const liked = await call(app(), `/tasks/${task.id}/feedback`, { key: c.key, body: { status: 'like' } });
    expect(liked.status, JSON.stringify(liked.body)).toBe(200);
    expect(liked.body.feedback).toMatchObject({ success: true, taskId: task.id, status: 'like' });
    expect((await call(app(), `/tasks/${task.id}/feedback`, { key: d.key, body: { status: 'like' } })).status).toBe(404);
    const after = TaskDetailEnvelope.parse((await call(app(), `/tasks/${task.id}`, { key: a.key })).body).task;
    expect(after).toMatchObject({ status: 'pending', feedback: null });
    const [stored] = await app().database.db.select({ f: tasks.followerFeedback }).from(tasks).where(eq(tasks.id, task.id));
    expect(stored.f).toEqual({ [c.id]: 'like' });
    await call(app(), `/tasks/${task.id}/feedback`, { key: c.key, body: { status: null } });
    const [cleared] = await app().database.db.select({ f: tasks.followerFeedback }).from(tasks).where(eq(tasks.id, task.id));
    expect(cleared.f).toEqual({});

    const theirs = ListTasksResponse.parse((await call(app(), '/tasks', { key: c.key })).body).tasks;
    expect(theirs.map((t) => t.id)).not.toContain(task.id);
  });

  it('a follower reads the task’s activity', async () => {
    const acct = await newAccount(app());
    const [a, c] = [await person(acct), await person(acct)];
    const task = await newTask(a, { followers: [c.email] });
    expect((await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'Book the venue' } })).status).toBe(200);
    const res = await call(app(), `/tasks/${task.id}/activities`, { key: c.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.activities.map((x: any) => x.message?.content)).toEqual(['Book the venue']);
  });

  it('an address names a follower only as one of their verified emails', async () => {
    const acct = await newAccount(app());
    const [a, c, e] = [await person(acct), await person(acct), await person(acct)];
    const verified = await secondEmail(c, true);
    const claimed = await secondEmail(e, false);
    const task = await newTask(a, { followers: [verified.toUpperCase(), claimed] });
    expect((await call(app(), `/tasks/${task.id}`, { key: c.key })).status).toBe(200);
    expect((await call(app(), `/tasks/${task.id}`, { key: e.key })).status).toBe(404);

    // The same address in another account names nobody here.
    const other = await newAccount(app(), 'Other');
    const stranger = await person(other);
    const reaching = await newTask(a, { followers: [stranger.email] });
    expect((await call(app(), `/tasks/${reaching.id}`, { key: stranger.key })).status).toBe(404);
  });

  it('files the owner attached to a task are readable by its followers, and only by them', async () => {
    const acct = await newAccount(app());
    const [a, b, c, d, e] = [await person(acct), await person(acct), await person(acct), await person(acct), await person(acct)];
    const claimed = await secondEmail(e, false);
    const task = await newTask(a, { followers: [c.email, claimed] });
    const shared = await upload(a, 'agenda: 9am');
    const kept = await upload(a, 'private notes');
    expect((await call(app(), `/drive-files/${shared}`, { key: c.key })).status).toBe(404);

    const processed = await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'Here is the agenda', files: [{ fileId: shared }] } });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);

    const meta = await call(app(), `/drive-files/${shared}`, { key: c.key });
    expect(meta.status, JSON.stringify(meta.body)).toBe(200);
    expect(meta.body.driveFile).toMatchObject({ id: shared, name: 'agenda.txt', status: 'ready' });
    const bytes = await download(c, shared);
    expect(bytes.status).toBe(200);
    expect(await bytes.text()).toBe('agenda: 9am');

    // Not attached, not a follower, an unverified follower address, not a user of the task's account.
    expect((await call(app(), `/drive-files/${kept}`, { key: c.key })).status).toBe(404);
    for (const p of [b, d, e]) {
      expect((await call(app(), `/drive-files/${shared}`, { key: p.key })).status).toBe(404);
      expect((await download(p, shared)).status).toBe(404);
    }

    // Another user's file written into the task's conversation is not the owner's to share.
    const foreign = await upload(b, 'b only');
    await db().insert(taskActivities).values({ taskId: task.id, accountId: acct.accountId, kind: 'user', content: 'x', fileIds: [foreign, 'not-a-file'] });
    expect((await call(app(), `/drive-files/${foreign}`, { key: c.key })).status).toBe(404);
    expect((await call(app(), `/drive-files/${foreign}`, { key: b.key })).status).toBe(200);

    // Deleting the task ends the sharing.
    expect((await call(app(), `/tasks/${task.id}`, { method: 'DELETE', key: a.key })).status).toBe(200);
    expect((await call(app(), `/drive-files/${shared}`, { key: c.key })).status).toBe(404);
    expect((await call(app(), `/drive-files/${shared}`, { key: a.key })).status).toBe(200);
  });

  it('a file a task shares with its follower stays shared when later activities carry no files; an activity whose files change shares the new ones', async () => {
    const acct = await newAccount(app());
    const [a, c] = [await person(acct), await person(acct)];
    const task = await newTask(a, { followers: [c.email] });
    const first = await upload(a, 'one');
    const second = await upload(a, 'two');
    expect((await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'First', files: [{ fileId: first }] } })).status).toBe(200);
    expect((await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'More' } })).status).toBe(200);
    expect((await call(app(), `/drive-files/${first}`, { key: c.key })).status).toBe(200);

    const [withFile] = await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, task.id), eq(taskActivities.content, 'First')));
    await db().update(taskActivities).set({ fileIds: [second] }).where(eq(taskActivities.id, withFile.id));
    expect((await call(app(), `/drive-files/${first}`, { key: c.key })).status).toBe(404);
    expect((await call(app(), `/drive-files/${second}`, { key: c.key })).status).toBe(200);
  });
});
