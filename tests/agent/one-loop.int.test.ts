import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskActivities } from '@/db/schema';
import { setAccountLimits } from '@/server/accounts/limits';
import { newAccount } from '../helpers/client';
import { newChat, openStream, type Sse } from '../chats/turn-harness';
import { useRunHarness } from './run-harness';

/**
 * One agent loop, two hosts (server/agent/runtime/loop.ts): a rule the loop holds is held for a
 * task run and a chat turn alike. Here the run limits of spec 5 (STEWARD_RUN_MAX_MODEL_CALLS,
 * STEWARD_RUN_MAX_TOOL_CALLS, set low per account): the same account's task run and chat turn
 * stop at the same count, say which limit stopped them where their user reads it (the task's
 * last activity, the chat's reply), and the tool calls past the limit are not run.
 */
const h = useRunHarness();
const { app, db, person, startTask, ended } = h;
const llm = () => h.state.llm;

const assistantSaid = async (taskId: string) =>
  (await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'assistant'))).orderBy(taskActivities.createdAt, taskActivities.id)).at(-1)?.content;
const toolActivities = async (taskId: string) => (await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'tool')))).length;
const toolResults = (events: Sse[]) => events.filter((e) => e.event === 'status_update' && e.data?.state === 'tool_result').length;

/** Every model call asks for `perCall` calls of a tool both hosts have (search_contacts). */
const searching = (perCall: number) => {
  let n = 0;
  llm().setFallback(() => ({ toolCalls: Array.from({ length: perCall }, (_, i) => ({ name: 'search_contacts', arguments: { query: `Ada ${++n}-${i}` } })) }));
};

async function chatTurn(p: { key: string; assistantId: string }) {
  const chatId = await newChat(app(), p);
  const s = openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'Who is Ada?' } } });
  expect(await s.status).toBe(200);
  const events = await s.done;
  const last = events.at(-1)!;
  expect(last.event, JSON.stringify(last)).toBe('message');
  return { events, reply: String(last.data.message.content) };
}

describe('a rule of the loop holds for both hosts', () => {
  it('the model-call limit stops a task run and a chat turn at the same count, naming the setting', async () => {
    const acct = await newAccount(app());
    await setAccountLimits(db(), acct.accountId, { runMaxModelCalls: 2 });
    const a = await person(acct);
    searching(1);

    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    expect(llm().requests).toHaveLength(2);
    expect(await toolActivities(taskId)).toBe(2);
    expect(await assistantSaid(taskId)).toContain('2 model calls');
    expect(await assistantSaid(taskId)).toContain('STEWARD_RUN_MAX_MODEL_CALLS');

    const turn = await chatTurn(a);
    expect(llm().requests).toHaveLength(4);
    expect(toolResults(turn.events)).toBe(2);
    expect(turn.reply).toContain('2 model calls');
    expect(turn.reply).toContain('STEWARD_RUN_MAX_MODEL_CALLS');
  }, 90_000);

  it('the tool-call limit stops both at the same count and runs none of the calls past it', async () => {
    const acct = await newAccount(app());
    await setAccountLimits(db(), acct.accountId, { runMaxToolCalls: 3 });
    const a = await person(acct);
    searching(2);

    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    expect(llm().requests).toHaveLength(2);
    expect(await toolActivities(taskId)).toBe(3);
    expect(await assistantSaid(taskId)).toContain('3 tool calls');
    expect(await assistantSaid(taskId)).toContain('STEWARD_RUN_MAX_TOOL_CALLS');

    const turn = await chatTurn(a);
    expect(llm().requests).toHaveLength(4);
    expect(toolResults(turn.events)).toBe(3);
    expect(turn.reply).toContain('3 tool calls');
    expect(turn.reply).toContain('STEWARD_RUN_MAX_TOOL_CALLS');
  }, 90_000);

  it('with the deployment’s limits, a chat turn still answers as before', async () => {
    const a = await person(await newAccount(app()));
    llm().enqueue({ toolCalls: [{ name: 'search_contacts', arguments: { query: 'Ada' } }] });
    llm().enqueue({ text: 'Nobody by that name.' });
    const turn = await chatTurn(a);
    expect(toolResults(turn.events)).toBe(1);
    expect(turn.reply).toBe('Nobody by that name.');
  }, 60_000);
});
