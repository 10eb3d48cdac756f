import { convert as htmlToText } from 'html-to-text';
import mammoth from 'mammoth';
import mime from 'mime-types';

/*
 * A file's text, for the agent's read_file (spec 5: "the file's text (extracted)"). Each format
 * goes through a well-kept library that only reads: PDF through unpdf (Mozilla's pdf.js built to
 * run on a server without a worker or a canvas), DOCX through mammoth's raw text, HTML through
 * html-to-text; CSV, Markdown, JSON and other text are read as UTF-8 as they are. Images have no
 * text: the run shows them to a model that sees images (files/vision.ts). Anything else is
 * refused with the reason, never guessed at.
 */

export type FileFormat = 'pdf' | 'docx' | 'html' | 'text' | 'image' | 'unsupported';

export type Extracted = { kind: 'text'; format: FileFormat; text: string } | { kind: 'image'; mimeType: string } | { kind: 'unsupported'; reason: string };

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** Types read as text as they are, beyond text/*. */
const TEXT_LIKE = new Set(['application/json', 'application/xml', 'application/csv', 'application/x-yaml', 'application/yaml', 'application/x-ndjson']);
/** Image types the model APIs take as image parts. */
export const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The type that decides how to read the file: the stored one, else what the name says. */
export function effectiveType(mimeType: string | null, name: string): string {
  const stored = (mimeType ?? '').split(';')[0].trim().toLowerCase();
  if (stored && stored !== 'application/octet-stream') return stored;
  return (mime.lookup(name) || 'application/octet-stream').toLowerCase();
}

export function formatOf(type: string): FileFormat {
  if (type === 'application/pdf') return 'pdf';
  if (type === DOCX) return 'docx';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('text/') || TEXT_LIKE.has(type)) return 'text';
  if (IMAGE_TYPES.has(type)) return 'image';
  return 'unsupported';
}

/** PDF pages joined by a blank line: page breaks are where the reader expects a gap. */
async function pdfText(bytes: Uint8Array): Promise<string> {
  // Loaded on first use: pdf.js is large and most processes never read a PDF.
  const { extractText, getDocumentProxy } = await import('unpdf');
  // pdf.js may detach the buffer it is given: it gets its own copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    return text.map((t) => t.trim()).join('\n\n');
  } finally {
    await pdf.loadingTask.destroy();
  }
}

async function docxText(bytes: Uint8Array): Promise<string> {
  const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
  return value;
}

const html = (bytes: Uint8Array) =>
  htmlToText(Buffer.from(bytes).toString('utf8'), {
    wordwrap: false,
    // Links keep their address (the reader may need it); images say nothing.
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    ],
  });

/** Collapses runs of blank lines and trailing spaces: what a page break or a layout leaves. */
const tidy = (s: string) =>
  s
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** The file's text by its type; a file that cannot be read (a damaged PDF) is `unsupported` with why. */
export async function extractText(bytes: Uint8Array, mimeType: string | null, name: string): Promise<Extracted> {
  const type = effectiveType(mimeType, name);
  const format = formatOf(type);
  try {
    if (format === 'image') return { kind: 'image', mimeType: type };
    if (format === 'pdf') return { kind: 'text', format, text: tidy(await pdfText(bytes)) };
    if (format === 'docx') return { kind: 'text', format, text: tidy(await docxText(bytes)) };
    if (format === 'html') return { kind: 'text', format, text: tidy(html(bytes)) };
    if (format === 'text') return { kind: 'text', format, text: tidy(new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/^\uFEFF/, '')) };
  } catch (e) {
    return { kind: 'unsupported', reason: `The ${format.toUpperCase()} file could not be read (${(e as Error).message.slice(0, 200)})` };
  }
  return { kind: 'unsupported', reason: `Files of type ${type} have no text to read (PDF, DOCX, HTML, CSV, Markdown and plain text do)` };
}
