import { describe, expect, it } from 'vitest';
import { useRunHarness } from '../agent/run-harness';
import { call, newAccount } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';
import { docxWith, pdfWith, PNG, upload } from './documents';

/*
 * Files a task carries are readable by its run (spec 5, read_file): the conversation names each
 * attached file (name, type, size, id), read_file returns its extracted text in pages inside the
 * untrusted wrapper (and taints the run), a file the owner cannot read is refused naming nothing,
 * and an image is shown as an image part to a tier configured as seeing images.
 */

const h = useRunHarness();
const { app, person, createTask, ended, taskRow } = h;

const userText = (r: ModelRequest) =>
  r.messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
const toolResults = (r: ModelRequest) => r.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

async function processWith(p: Awaited<ReturnType<typeof person>>, taskId: string, message: string, files: string[]) {
  const res = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message, files: files.map((fileId) => ({ fileId })) } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.process.executionId as string;
}

describe('read_file', () => {
  it('names the attached files and reads PDF, DOCX, HTML and CSV text, in pages, as untrusted data', async () => {
    const a = await person(await newAccount(app()));
    const pdf = await upload(app(), a.key, 'report.pdf', pdfWith([['Quarterly revenue grew 12 percent'], ['Page two: costs fell']]));
    const docx = await upload(app(), a.key, 'memo.docx', await docxWith(['The board meets on Tuesday', 'Bring the slides']));
    const html = await upload(app(), a.key, 'page.html', Buffer.from('<html><body><h1>Menu</h1><p>Soup of the <b>day</b></p><script>evil()</script></body></html>'));
    const csv = await upload(app(), a.key, 'guests.csv', Buffer.from('name,seat\nAda,1\nBob,2\n'));
    const taskId = await createTask(a, { title: 'Summarise the documents' });

    h.state.llm.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: { fileId: pdf } }, { name: 'read_file', arguments: { fileId: docx } }] },
      { toolCalls: [{ name: 'read_file', arguments: { fileId: html } }, { name: 'read_file', arguments: { fileId: csv, page: 2 } }] },
      { toolCalls: [{ name: 'read_file', arguments: { fileId: csv } }] },
      { text: 'Summary ready.' },
    );
    const runId = await processWith(a, taskId, 'Please summarise these', [pdf, docx, html, csv]);
    expect((await ended(runId)).status).toBe('finished');

    const [first, second, third, fourth] = h.state.llm.requests;
    // The model is told which files it has: name, type, size and id, with the message they came with.
    expect(userText(first)).toContain('Please summarise these');
    expect(userText(first)).toMatch(new RegExp(`"report\\.pdf" \\(application/pdf, \\d+ bytes, fileId ${pdf}\\)`));
    expect(userText(first)).toContain(`"memo.docx" (application/vnd.openxmlformats-officedocument.wordprocessingml.document`);
    expect(userText(first)).toContain(`fileId ${csv}`);
    expect(first.tools!.map((t: { function: { name: string } }) => t.function.name)).toContain('read_file');

    const [pdfResult, docxResult] = toolResults(second);
    expect(pdfResult).toContain('<untrusted-data source="tool:read_file">');
    expect(pdfResult).toContain('Quarterly revenue grew 12 percent');
    expect(pdfResult).toContain('Page two: costs fell');
    expect(pdfResult).toContain('"pageCount":1');
    expect(docxResult).toContain('The board meets on Tuesday');
    expect(docxResult).toContain('Bring the slides');

    const htmlAndPage = toolResults(third).slice(-2);
    expect(htmlAndPage[0]).toContain('Soup of the day');
    expect(htmlAndPage[0]).not.toContain('evil()');
    // A page past the end is refused with the page count.
    expect(htmlAndPage[1]).toContain('page: the file has 1 page(s)');
    expect(toolResults(fourth).at(-1)).toContain('Ada,1');

    // Reading a document is reading outside content: the task is tainted by the file.
    const task = await taskRow(taskId);
    expect(task.tainted).toBe(true);
    expect(task.taintSources).toContainEqual({ kind: 'file', ref: pdf });
  });

  it('pages a long text, and refuses another user’s file as not found, naming nothing', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const b = await person(acct);
    const long = Array.from({ length: 2_000 }, (_, i) => `line ${i} of the long notes`).join('\n');
    const mine = await upload(app(), a.key, 'notes.md', Buffer.from(long));
    const theirs = await upload(app(), b.key, 'secret-plans.txt', Buffer.from('Project Nightingale launches in May'));
    const taskId = await createTask(a, { title: 'Read the notes' });
    h.state.llm.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: { fileId: mine, page: 2 } }] },
      { toolCalls: [{ name: 'read_file', arguments: { fileId: theirs } }] },
      { text: 'Done.' },
    );
    const runId = await processWith(a, taskId, 'Read my notes', [mine, theirs]);
    expect((await ended(runId)).status).toBe('finished');
    const [first, second, third] = h.state.llm.requests;
    // B's file, attached by A, is never named to A's run.
    expect(userText(first)).not.toContain(theirs);
    expect(userText(first)).not.toContain('secret-plans');
    const page2 = toolResults(second).at(-1)!;
    expect(page2).toContain('"page":2');
    expect(page2).toMatch(/"pageCount":[3-9]/);
    expect(page2).toContain('"nextPage":3');
    expect(page2).not.toContain('line 0 of the long notes');
    const refused = toolResults(third).at(-1)!;
    expect(refused).toContain('File not found');
    expect(refused).not.toContain('Nightingale');
    expect(refused).not.toContain('secret-plans');
  });

  it('shows an attached image as an image part to a tier that sees images, and only names it to one that does not', async () => {
    const a = await person(await newAccount(app()));
    const image = await upload(app(), a.key, 'receipt.png', PNG);
    const saved = process.env.STEWARD_MODEL_VISION_TIERS;
    try {
      process.env.STEWARD_MODEL_VISION_TIERS = 'low,medium';
      const seeing = await createTask(a, { title: 'Read the receipt' });
      h.state.llm.enqueue({ text: 'It says 12 euros.' });
      expect((await ended(await processWith(a, seeing, 'What does this receipt say?', [image]))).status).toBe('finished');
      const withImage = h.state.llm.requests.at(-1)!;
      const parts = withImage.messages.flatMap((m: { role: string; content: unknown }) => (m.role === 'user' && Array.isArray(m.content) ? m.content : []));
      const picture = parts.find((p: { type: string }) => p.type === 'image_url');
      expect(picture?.image_url.url).toMatch(/^data:image\/png;base64,/);
      // The image sits inside the untrusted wrapper, and the run is tainted by it.
      expect(JSON.stringify(parts)).toContain(`<untrusted-data source=\\"file:${image}\\">`);
      expect((await taskRow(seeing)).taintSources).toContainEqual({ kind: 'file', ref: image });

      process.env.STEWARD_MODEL_VISION_TIERS = 'ultra';
      const blind = await createTask(a, { title: 'Read the receipt again' });
      h.state.llm.enqueue({ text: 'I cannot see images.' });
      expect((await ended(await processWith(a, blind, 'And this one?', [image]))).status).toBe('finished');
      const textOnly = h.state.llm.requests.at(-1)!;
      expect(JSON.stringify(textOnly.messages)).not.toContain('image_url');
      expect(userText(textOnly)).toContain(`"receipt.png" (image/png, ${PNG.length} bytes, fileId ${image})`);
    } finally {
      if (saved === undefined) delete process.env.STEWARD_MODEL_VISION_TIERS;
      else process.env.STEWARD_MODEL_VISION_TIERS = saved;
    }
  });
});
