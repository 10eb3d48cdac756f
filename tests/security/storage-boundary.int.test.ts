import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, chatMessages, inboundTexts, memories, taskActivities, users } from '@/db/schema';
import { recordAudit } from '@/server/audit/record';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { createMemory } from '@/server/memories/service';
import { channelActor } from '@/server/messaging/owner-actor';
import { useRunHarness } from '../agent/run-harness';
import { upload } from '../files/documents';
import { call, newAccount } from '../helpers/client';
import { useSendblueFake } from '../helpers/sendblue-fake';

/*
 * The storage boundary (issue 40, the low): a NUL byte or a lone surrogate in anything that comes
 * from outside or from a tool — a file read_file extracts, a model's words and arguments, a text
 * message, a memory, an audit detail — is stored with U+FFFD in its place, and never ends the task
 * in `error` or fails the webhook that brought it. (shell_run's output: tests/workspace/sandbox-
 * security.int.test.ts, which runs a real sandbox.)
 */

const h = useRunHarness();
const { app, person, createTask, ended, taskRow } = h;
const sendblue = useSendblueFake();

const NUL = '\u0000';
const LONE = '\ud800';
const R = '\ufffd';

describe('task activities', () => {
  it('read_file of a text file holding NUL bytes: the run finishes, the task completes, the output is stored with U+FFFD', async () => {
    const p = await person(await newAccount(app()));
    const file = await upload(app(), p.key, 'cmdline.txt', Buffer.from(`node${NUL}server.js${NUL}--port${NUL}3000\n`));
    const taskId = await createTask(p, { title: 'Read the dump' });
    h.state.llm.enqueue({ toolCalls: [{ name: 'read_file', arguments: { fileId: file } }] }, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'read' } }] });
    const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Read it', files: [{ fileId: file }] } });
    expect(processed.status).toBe(200);
    const run = await ended(processed.body.process.executionId);
    expect(run.status, JSON.stringify(run)).toBe('finished');
    expect((await taskRow(taskId)).status).toBe('completed');
    const [read] = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.toolName, 'read_file')));
    expect(JSON.stringify(read!.toolOutput)).toContain(`node${R}server.js${R}--port${R}3000`);
  });

  it('the model’s own words and arguments with NUL and a lone surrogate: stored, and the task completes with that summary', async () => {
    const p = await person(await newAccount(app()));
    const taskId = await createTask(p, { title: 'Echo' });
    h.state.llm.enqueue({ text: `said a${NUL}b${LONE}c`, toolCalls: [{ name: 'update_plan', arguments: { items: [{ title: `step${NUL}one`, status: 'done' }] } }] }, { toolCalls: [{ name: 'complete_task', arguments: { summary: `done${NUL}!` } }] });
    const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Go' } });
    const run = await ended(processed.body.process.executionId);
    expect(run.status, JSON.stringify(run)).toBe('finished');
    const task = await taskRow(taskId);
    expect(task).toMatchObject({ status: 'completed', summary: `done${R}!` });
    const tools = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.toolName, 'update_plan')));
    expect(JSON.stringify(tools[0]!.toolInput)).toContain(`step${R}one`);
  });
});

describe('messages, memories and audit details', () => {
  it('a text message with NUL: the webhook answers as usual, the message and its record are stored with U+FFFD, and the owner’s chat turn answers', async () => {
    const acct = await newAccount(app());
    const p = await person(acct);
    const phone = `+1917555${String(Date.now()).slice(-4)}`;
    expect((await call(app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } })).status).toBe(201);
    const request = await call(app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { imessage: true } } });
    const line = `+1917556${String(Date.now()).slice(-4)}`;
    await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line });
    h.state.llm.enqueue({ text: `got it${NUL}` });
    const handle = randomUUID();
    const res = await sendblue().receive({ message_handle: handle, content: `ping${NUL}pong${LONE}`, from_number: phone, sendblue_number: line });
    expect(res.status).toBe(204);
    const [text] = await h.db().select().from(inboundTexts).where(eq(inboundTexts.providerMessageId, handle));
    expect(text!.body).toBe(`ping${R}pong${R}`);
    const [asked] = await h.db().select().from(chatMessages).where(eq(chatMessages.referenceId, handle));
    expect(asked!.content).toBe(`ping${R}pong${R}`);
    const answer = await h.until(async () => (await h.db().select().from(chatMessages).where(and(eq(chatMessages.chatId, asked!.chatId), eq(chatMessages.role, 'assistant'))))[0] ?? null, 20_000);
    expect(answer.content).toBe(`got it${R}`);
  });

  it('a memory and an audit event with NUL and a lone surrogate in them are stored with U+FFFD', async () => {
    const acct = await newAccount(app());
    const p = await person(acct);
    const [user] = await h.db().select().from(users).where(eq(users.id, p.id));
    const actor = (await channelActor(h.db(), user!, 'test'))!;
    const { memory } = await createMemory(h.db(), actor, { content: `note${NUL}${LONE}`, tags: ['general'], metadata: { from: `x${NUL}` } } as never);
    const [row] = await h.db().select().from(memories).where(eq(memories.id, memory.id));
    expect(row).toMatchObject({ content: `note${R}${R}`, metadata: { from: `x${R}` } });
    const event = await h.db().transaction((tx) => recordAudit(tx, actor, 'sso.updated', { type: 'user', id: p.id }, { before: { reason: `bad${NUL}` }, after: { [`k${LONE}`]: `v${NUL}` } }));
    const [stored] = await h.db().select().from(auditEvents).where(eq(auditEvents.id, event.id));
    expect(stored!.changes).toEqual({ before: { reason: `bad${R}` }, after: { [`k${R}`]: `v${R}` } });
  });
});
