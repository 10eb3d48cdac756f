import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assistants, inboundMessages, tasks } from '@/db/schema';
import { newAccount } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';
import { useEmailHarness } from '../messaging/email-harness';

/*
 * `conversation` (spec 2: "a conversational thread at rest; a new message reopens it"): a
 * conversation with someone started by their message rests there when its run answers, with no
 * follow-up alarm (nothing is owed until they write), and their next message reopens it for a run.
 */
const h = useEmailHarness();

describe('conversation', () => {
  it('a conversation rests in conversation after its run, and the next message reopens it', async () => {
    const p = await h.person(await newAccount(h.app()));
    await h.db().update(assistants).set({ talkToStrangers: true }).where(eq(assistants.id, p.assistantId));
    h.state.llm.setFallback((r: ModelRequest) =>
      r.messages.some((m) => m.role === 'tool')
        ? { text: 'Drafted.' }
        : { toolCalls: [{ name: 'send_email', arguments: { to: ['erin@stranger.test'], subject: 'Re: Hello', body: 'Thanks, I will come back to you.' } }] },
    );
    const first = await h.mail({ from: 'erin@stranger.test', to: p.assistantEmail, subject: 'Hello', text: 'Is your boss free on Monday?' });
    const taskId = (
      await h.until(async () => {
        const [r] = await h.db().select().from(inboundMessages).where(eq(inboundMessages.messageId, first));
        return r?.taskId ? r : null;
      }, 10_000)
    ).taskId!;
    const atRest = await h.until(async () => {
      const [t] = await h.db().select().from(tasks).where(eq(tasks.id, taskId));
      return t?.status === 'conversation' ? t : null;
    }, 20_000);
    expect(atRest.alarmStatus).not.toBe('set');

    await h.mail({ from: 'erin@stranger.test', to: p.assistantEmail, subject: 'Re: Hello', text: 'Any news?', inReplyTo: first, references: [first] });
    await h.until(async () => ((await h.runsOf(taskId)).length >= 2 ? true : null), 20_000);
    const again = await h.until(async () => {
      const runs = await h.runsOf(taskId);
      const [t] = await h.db().select().from(tasks).where(eq(tasks.id, taskId));
      return runs.length >= 2 && runs.every((r) => r.status === 'finished') && t.status === 'conversation' ? t : null;
    }, 20_000);
    expect(again.status).toBe('conversation');
    expect(JSON.stringify(h.state.llm.requests.at(-1)?.messages)).toContain('Any news?');
  });
});
