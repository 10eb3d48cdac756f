import { TOTAL_MS } from '@/server/http/outbound-timeouts';
import { cappedGet, INBOUND_FILES_BYTES } from '../capped-get';
import type { InboundFile } from '../adapter';
import type { ChannelAttachment } from '../message';
import { slackFilesBase } from './config';
import { SlackFileObject } from './contracts';
import { PROVIDER_ALLOW } from './provider-http';

/*
 * The files of a Slack message, downloaded for the channel layer (issue 41: files on every
 * channel), after the event was acknowledged and before the transaction that routes it:
 * - Only from Slack's file host: the bot token goes only to the origin of STEWARD_SLACK_FILES_URL
 *   (https://files.slack.com). A signed event still names its URLs itself; a URL anywhere else is
 *   never fetched, so no event can make Steward send the token, or a request, elsewhere.
 * - No redirect is followed (the token would ride along), and an HTML page where a file was
 *   expected is refused: Slack answers a request its token may not make (no `files:read`) with its
 *   sign-in page and HTTP 200.
 * - At most 25 MB for the message's files together, the largest mail Steward takes
 *   (server/mail/inbound-listener.ts): a file larger than what is left is refused by the size Slack
 *   gives, and the bytes are read with that cap, the download cut as soon as it is passed. A
 *   whole-message deadline keeps one message's downloads from outlasting the 30 s after which the
 *   channel sweep routes a still-received event again.
 * - A file that is not downloadable (deleted, hidden by the plan, external, a stub from another
 *   organization) or fails is named with why, for the message's text: nothing is dropped silently.
 * The bytes come through ../capped-get.ts, under the address rule of every provider call.
 */

/** The most a message's files may weigh together: the largest mail (DEFAULT_MAX_BYTES of the mail listener). */
const MAX_MESSAGE_FILE_BYTES = INBOUND_FILES_BYTES;
/** Slack shares at most 10 files in one message; anything beyond is not fetched. */
const MAX_FILES = 10;
/** All of one message's downloads, under the channel sweep's 30 s. */
const MESSAGE_DEADLINE_MS = 25_000;

export type FileProblem = { name: string; problem: string };

const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
const tooLarge = (cap: number) =>
  cap >= MAX_MESSAGE_FILE_BYTES ? `larger than the ${mb(MAX_MESSAGE_FILE_BYTES)} a message's files may take` : `larger than the ${cap} bytes left of the ${mb(MAX_MESSAGE_FILE_BYTES)} a message's files may take`;

/** Why a described file has nothing to download, if so. */
function notDownloadable(f: SlackFileObject): string | null {
  if (f.mode === 'tombstone') return 'it was deleted in Slack';
  if (f.mode === 'hidden_by_limit') return 'Slack hides it beyond the workspace plan’s limit';
  if (f.is_external || f.mode === 'external') return 'it is kept outside Slack (an external file)';
  if (f.file_access === 'check_file_info') return 'Slack sent no details of it (a file shared from another organization)';
  return null;
}

/**
 * One file of a message: its bytes as a ChannelAttachment, or why not. `cap` is what is left of the
 * message's allowance; `base` is Slack's file host, the only origin the token is sent to.
 */
export async function downloadSlackFile(token: string, raw: unknown, opts: { base?: string; cap?: number; timeoutMs?: number } = {}): Promise<ChannelAttachment | FileProblem> {
  const parsed = SlackFileObject.safeParse(raw);
  if (!parsed.success) return { name: 'a file', problem: 'Slack described it in a form Steward does not read' };
  const f = parsed.data;
  const name = (f.name || f.title || f.id).slice(0, 255);
  const refused = (problem: string): FileProblem => ({ name, problem });
  const why = notDownloadable(f);
  if (why) return refused(why);
  const address = f.url_private_download ?? f.url_private;
  if (!address) return refused('Slack gave no address to download it from');
  let host: URL;
  let url: URL;
  try {
    host = new URL(opts.base ?? slackFilesBase());
  } catch {
    return refused('STEWARD_SLACK_FILES_URL is not a URL: no file is fetched');
  }
  try {
    url = new URL(address);
  } catch {
    return refused('its address is not a URL');
  }
  if (url.origin !== host.origin || url.username || url.password) return refused(`its address is not on Slack's file host (${host.origin}): not fetched`);
  const cap = opts.cap ?? MAX_MESSAGE_FILE_BYTES;
  if (f.size !== undefined && f.size > cap) return refused(tooLarge(cap));
  const got = await cappedGet(url, { headers: { Authorization: `Bearer ${token}` }, maxBytes: cap, timeoutMs: opts.timeoutMs ?? TOTAL_MS.media, allowEnv: PROVIDER_ALLOW, tooLarge: tooLarge(cap) });
  if ('problem' in got) return refused(got.problem);
  // A redirect is not followed: the token would go wherever it points.
  if (got.status >= 300 && got.status < 400) return refused(`Slack pointed elsewhere (HTTP ${got.status}): not followed`);
  if (!('body' in got)) return refused(`Slack refused the download (HTTP ${got.status})`);
  const answered = got.contentType?.split(';')[0]!.trim().toLowerCase() ?? null;
  if (answered === 'text/html' && f.mimetype !== 'text/html') return refused('Slack answered with a sign-in page (the app may lack the files:read scope)');
  if (f.size !== undefined && got.body.length !== f.size) return refused('it did not arrive whole');
  return { filename: name, contentType: f.mimetype || answered || 'application/octet-stream', content: got.body };
}

/**
 * The files of one message for the port (InboundFile: fetched when the core asks, one after
 * another), within the message's allowance and deadline, which the list shares; what could not be
 * fetched says why.
 */
export function slackInboundFiles(tokenOf: () => Promise<string | null>, files: unknown[], opts: { base?: string; now?: () => number } = {}): InboundFile[] {
  const now = opts.now ?? Date.now;
  let until: number | null = null;
  let token: Promise<string | null> | null = null;
  let left = MAX_MESSAGE_FILE_BYTES;
  return files.map((raw, i) => {
    const named = SlackFileObject.safeParse(raw);
    const name = named.success ? (named.data.name || named.data.title || named.data.id) : 'a file';
    return {
      filename: name,
      contentType: (named.success && named.data.mimetype) || 'application/octet-stream',
      async fetch() {
        // The deadline runs from the first fetch: the message's downloads start after the webhook's answer.
        until ??= now() + MESSAGE_DEADLINE_MS;
        token ??= tokenOf();
        const bearer = await token;
        if (!bearer) return { problem: 'the app has no bot in this workspace to fetch it with' };
        if (i >= MAX_FILES) return { problem: `more than ${MAX_FILES} files in one message` };
        if (left <= 0) return { problem: `the message's files exceed ${mb(MAX_MESSAGE_FILE_BYTES)} together` };
        if (until - now() <= 0) return { problem: `the message's files took longer than ${MESSAGE_DEADLINE_MS / 1000} s to fetch` };
        const got = await downloadSlackFile(bearer, raw, { base: opts.base, cap: left, timeoutMs: Math.min(TOTAL_MS.media, until - now()) });
        if ('problem' in got) return { problem: got.problem };
        left -= got.content.length;
        return got;
      },
    };
  });
}
