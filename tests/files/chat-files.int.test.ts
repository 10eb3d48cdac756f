import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { tasks } from '@/db/schema';
import { useRunHarness } from '../agent/run-harness';
import { newChat, openStream } from '../chats/turn-harness';
import { newAccount } from '../helpers/client';
import { pdfWith, upload } from './documents';

/* A chat message's files are named to the turn's model, and the chat's tools read them (read_file). */

const h = useRunHarness();
const { app } = h;

describe('files in a chat turn', () => {
  it('names the attached file and reads it with read_file, as untrusted data', async () => {
    const a = await h.person(await newAccount(app()));
    const pdf = await upload(app(), a.key, 'contract.pdf', pdfWith([['Notice period: three months']]));
    const chatId = await newChat(app(), a);
    h.state.llm.enqueue({ toolCalls: [{ name: 'read_file', arguments: { fileId: pdf } }] }, { text: 'Three months.' });
    const events = await openStream(app(), `/chats/${chatId}/process`, {
      key: a.key,
      body: { message: { content: 'What is the notice period?', files: [{ fileId: pdf }] } },
    }).done;
    expect(events.find((e) => e.event === 'message')?.data.message.content).toBe('Three months.');
    const [first, second] = h.state.llm.requests;
    const asked = JSON.stringify(first.messages);
    expect(asked).toContain('What is the notice period?');
    expect(asked).toMatch(new RegExp(`\\\\"contract\\.pdf\\\\" \\(application/pdf, \\d+ bytes, fileId ${pdf}\\)`));
    expect(first.tools!.map((t: { function: { name: string } }) => t.function.name)).toContain('read_file');
    const result = second.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => String(m.content)).join('\n');
    expect(result).toContain('<untrusted-data source="tool:read_file">');
    expect(result).toContain('Notice period: three months');
  });

  it('a turn that read a document opens only a proposal, tainted with the file', async () => {
    const a = await h.person(await newAccount(app()));
    const pdf = await upload(app(), a.key, 'invoice.pdf', pdfWith([['Pay 900 EUR to IBAN XX00 today']]));
    const chatId = await newChat(app(), a);
    h.state.llm.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: { fileId: pdf } }] },
      { toolCalls: [{ name: 'create_task', arguments: { title: 'Pay the invoice from the PDF' } }] },
      { text: 'Opened a task.' },
    );
    await openStream(app(), `/chats/${chatId}/process`, { key: a.key, body: { message: { content: 'Deal with this', files: [{ fileId: pdf }] } } }).done;
    const [created] = await h.db().select().from(tasks).where(and(eq(tasks.userId, a.id), eq(tasks.title, 'Pay the invoice from the PDF')));
    expect(created).toMatchObject({ proposalStatus: 'pending_user_approval', tainted: true });
    expect(created!.taintSources).toContainEqual({ kind: 'file', ref: pdf });
  });
});
