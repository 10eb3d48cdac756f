import type { Delivery } from '../message';
import { ProviderHttpError } from '../providers';
import { ConversationsOpenAnswer, UploadUrlAnswer } from './contracts';
import { providerRequest } from './provider-http';
import { callMethod, deliveryOf } from './web-api';

/*
 * Files into a Slack conversation (issue 41: files on every channel), the way Slack's API takes
 * them since files.upload was retired: for each file `files.getUploadURLExternal` (its name and
 * length) gives an upload URL and a file id, the bytes are POSTed there, then one
 * `files.completeUploadExternal` shares them all into the conversation with the message's words as
 * `initial_comment` (one message with its files). Needs the bot scope `files:write`.
 *
 * Until the completing call, nothing is visible to anyone (an upload not completed is discarded by
 * Slack), so a refusal or a lost answer before it is `failed`: nothing was sent. Only a completing
 * call whose answer was lost is `unknown`. A member id (U…/W…) is first turned into the DM with
 * them (`conversations.open`, scope `im:write`): files are shared into conversations only.
 */

export type SlackFile = { filename: string; contentType: string; content: Buffer };

/** Slack's limit for one file is 1 GB; Steward's files are far smaller, but a bound keeps a bad row from being read whole. */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;

/** The conversation to share into: a conversation id as it is, a member's id as the bot's DM with them. */
async function conversationOf(token: string, to: string): Promise<{ id: string } | { problem: string }> {
  if (!/^[UW]/.test(to)) return { id: to };
  const call = await callMethod('conversations.open', token, { users: to }, true);
  if (!call.ok) return { problem: `Slack conversations.open: ${call.error}` };
  const parsed = ConversationsOpenAnswer.safeParse(call.body);
  return parsed.success ? { id: parsed.data.channel.id } : { problem: 'Slack conversations.open: unexpected answer' };
}

/** Uploads one file's bytes; the file is not shared yet. */
async function upload(token: string, file: SlackFile): Promise<{ fileId: string } | { problem: string }> {
  if (file.content.length > MAX_FILE_BYTES) return { problem: `"${file.filename}" is larger than Slack takes` };
  const asked = await callMethod('files.getUploadURLExternal', token, { filename: file.filename, length: file.content.length }, true);
  if (!asked.ok) return { problem: `Slack files.getUploadURLExternal: ${asked.error}` };
  const target = UploadUrlAnswer.safeParse(asked.body);
  if (!target.success) return { problem: 'Slack files.getUploadURLExternal: unexpected answer' };
  try {
    const put = await providerRequest('Slack', target.data.upload_url, { method: 'POST', headers: { 'Content-Type': file.contentType || 'application/octet-stream' }, body: file.content });
    if (put.status !== 200) return { problem: `Slack refused the upload of "${file.filename}" (HTTP ${put.status})` };
  } catch (e) {
    return { problem: `the upload of "${file.filename}" to Slack failed: ${(e as ProviderHttpError).message}` };
  }
  return { fileId: target.data.file_id };
}

/**
 * Posts `text` with `files` into the conversation `to` (a conversation id, or a member's id: their
 * DM), in a thread when `threadTs` is given. The Delivery's providerMessageId names the
 * conversation and the shared files (`<channel>/files:<F1>,<F2>`): Slack answers the completing
 * call with the files, not with the message's ts.
 */
export async function postFiles(token: string, m: { to: string; text: string; threadTs?: string | null; files: SlackFile[] }): Promise<Delivery> {
  const failed = (reason: string): Delivery => ({ state: 'failed', providerMessageId: null, reason });
  const conversation = await conversationOf(token, m.to);
  if ('problem' in conversation) return failed(conversation.problem);
  const ids: Array<{ id: string; title: string }> = [];
  for (const file of m.files) {
    const up = await upload(token, file);
    if ('problem' in up) return failed(`${up.problem}: nothing was sent`);
    ids.push({ id: up.fileId, title: file.filename });
  }
  const call = await callMethod('files.completeUploadExternal', token, {
    files: ids,
    channel_id: conversation.id,
    ...(m.text ? { initial_comment: m.text } : {}),
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
  });
  if (!call.ok) return deliveryOf(call, 'files.completeUploadExternal');
  return { state: 'accepted', providerMessageId: `${conversation.id}/files:${ids.map((f) => f.id).join(',')}` };
}
