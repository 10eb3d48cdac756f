import { z } from 'zod';
import { jsonOf, providerRequest } from '../twilio/http';
import type { SendblueConfig } from './sendblue';

/*
 * A file on an iMessage (issue 41), the way Sendblue's docs take one: send-message has a single
 * `media_url`, a URL Sendblue fetches, which "must end with the proper file extension" and "does
 * not support signed urls" (docs.sendblue.com, Sending messages). Steward's media links
 * (server/files/media-links.ts) are signed and end in `/content?expires&signature`, so the bytes
 * go up first through Sendblue's direct upload, POST /api/upload-file (multipart, field `file`,
 * answered 201 `{status: "OK", media_url}` on Sendblue's CDN, named after the file), and that
 * media_url goes with the words in the one send-message.
 *
 * An upload is not a message: nobody sees it, so an upload refused or whose answer was lost means
 * nothing was sent (the send is never attempted without a media_url). Sends cap files at 5 MB.
 */

/** Sendblue's cap for a file sent with a message ("Files are currently capped at 5MB"). */
export const SENDBLUE_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** One `media_url` per send-message. */
export const SENDBLUE_MAX_FILES = 1;

export type SendblueFile = { filename: string; contentType: string; content: Buffer };

const UploadAnswer = z.object({ media_url: z.string().url().max(2048), status: z.string().optional() }).loose();

/** Why these files cannot go on one iMessage (Sendblue's limits), or null when they fit. */
export function imessageFilesProblem(files: ReadonlyArray<{ content?: Buffer }> | number): string | null {
  const count = typeof files === 'number' ? files : files.length;
  if (count > SENDBLUE_MAX_FILES) return `An iMessage carries at most ${SENDBLUE_MAX_FILES} file (Sendblue takes one media_url per message)`;
  if (typeof files !== 'number') {
    const big = files.find((f) => (f.content?.length ?? 0) > SENDBLUE_MAX_FILE_BYTES);
    if (big) return `A file on an iMessage is at most ${SENDBLUE_MAX_FILE_BYTES} bytes (Sendblue's limit); this one has ${big.content!.length}`;
  }
  return null;
}

/** Uploads one file's bytes to Sendblue's CDN: the media_url to send it with, or why not (nothing was sent either way). */
export async function sendblueUploadFile(c: SendblueConfig, file: SendblueFile): Promise<{ ok: true; mediaUrl: string } | { ok: false; reason: string }> {
  // The platform's own multipart encoder (names and quotes escaped as browsers do).
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.content)], { type: file.contentType || 'application/octet-stream' }), file.filename);
  const encoded = new Request('http://multipart.invalid', { method: 'POST', body: form });
  const a = await providerRequest({
    method: 'POST',
    url: new URL(`${c.apiUrl}/api/upload-file`),
    headers: { 'sb-api-key-id': c.apiKey, 'sb-api-secret-key': c.apiSecret, 'Content-Type': encoded.headers.get('content-type')!, Accept: 'application/json' },
    body: Buffer.from(await encoded.arrayBuffer()),
  });
  if (a.status === null) return { ok: false, reason: `the upload of "${file.filename}" to Sendblue failed (${a.error})` };
  const answer = UploadAnswer.safeParse(jsonOf(a));
  if (a.status >= 200 && a.status < 300 && answer.success && answer.data.status !== 'ERROR') return { ok: true, mediaUrl: answer.data.media_url };
  const why = (jsonOf(a) as { message?: unknown; error_message?: unknown } | null) ?? null;
  const said = why?.error_message ?? why?.message;
  return { ok: false, reason: `Sendblue refused the upload of "${file.filename}" (${a.status}${said ? `: ${String(said).slice(0, 300)}` : ''})` };
}
