import net from 'node:net';
import mime from 'mime-types';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';
import { cappedGet, INBOUND_FILES_BYTES } from '../capped-get';
import type { InboundFile } from '../adapter';
import type { ChannelAttachment } from '../message';
import { PROVIDER_ALLOW } from '../slack/provider-http';
import { FILE_DOWNLOAD_INFO, FileDownloadInfo, UrlAttachment, type Activity } from './activity';
import type { TeamsBotConfig } from './config';
import { connectorToken } from './connector';

/*
 * The files of a Teams message from a person in a 1:1 chat (issue 41), fetched once the Connector
 * has had its answer, for routeInbound to store as the person's files like any channel's:
 * - a file they shared (`application/vnd.microsoft.teams.file.download.info`) is in their OneDrive:
 *   its `content.downloadUrl` is pre-authenticated and fetched with no credential, and only from a
 *   host STEWARD_TEAMS_FILE_HOSTS names (https; http only for a loopback host named there);
 * - an image pasted inline is held by the Bot Connector (`contentUrl`): fetched with the bot's
 *   token, and only under the serviceUrl of the activity, which the Connector's signed token
 *   vouched for, so the token never goes anywhere else;
 * - cards and the message's HTML rendering are not files and are passed over.
 * Each file at most MAX_TEAMS_FILE_BYTES, read with that cap and within the media timeout, under
 * the outbound address rule of every provider call (STEWARD_PROVIDER_ALLOWED_RANGES). What was not
 * fetched is named with the reason, for the message's text: nothing is dropped silently.
 */

/**
 * 25 MB: the size of a whole mail Steward takes in, and of the largest file it reads for the
 * assistant. Texts stop at 5 MB, but that is what an MMS can carry; a Teams file is a document.
 */
export const MAX_TEAMS_FILE_BYTES = INBOUND_FILES_BYTES;
/** Files fetched from one message; the rest are named as not received. */
export const MAX_TEAMS_FILES = 10;
const MAX_REDIRECTS = 3;
const TOO_LARGE = `larger than the ${MAX_TEAMS_FILE_BYTES / (1024 * 1024)} MB Steward takes from Teams`;

type Wanted =
  | { kind: 'shared'; name: string; url: string }
  | { kind: 'connector'; name: string | null; contentType: string; url: string }
  | { kind: 'unreadable'; name: string };

function wantedOf(raw: unknown): Wanted | null {
  const type = (raw as { contentType?: unknown } | null)?.contentType;
  if (type === FILE_DOWNLOAD_INFO) {
    const f = FileDownloadInfo.safeParse(raw);
    const name = (raw as { name?: unknown }).name;
    if (!f.success) return { kind: 'unreadable', name: typeof name === 'string' && name ? name.slice(0, 255) : 'a file' };
    return { kind: 'shared', name: f.data.name || `file${f.data.content.fileType ? `.${f.data.content.fileType}` : ''}`, url: f.data.content.downloadUrl };
  }
  const a = UrlAttachment.safeParse(raw);
  if (!a.success) return null;
  const t = a.data.contentType.toLowerCase();
  // Cards (application/vnd.microsoft.card.*, file consent and the like) and the HTML rendering of the message.
  if (t.startsWith('text/html') || t.startsWith('application/vnd.microsoft.')) return null;
  return { kind: 'connector', name: a.data.name ?? null, contentType: t, url: a.data.contentUrl };
}

/** The files a message carries (parsed, not fetched). */
const wantedFiles = (activity: Pick<Activity, 'attachments'>) => (activity.attachments ?? []).map(wantedOf).filter((w): w is Wanted => w !== null);

/** Whether a message carries files: such a message is routed even without words. */
export const carriesFiles = (activity: Pick<Activity, 'attachments'>) => wantedFiles(activity).length > 0;

const isLoopback = (host: string) => host === 'localhost' || host.endsWith('.localhost') || host === '::1' || (net.isIPv4(host) && host.startsWith('127.'));
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();

/** Why a shared file's URL is not fetched, or null: a configured host (or under one), https but for loopback. */
export function sharedUrlProblem(fileHosts: string[], url: URL): string | null {
  const host = hostOf(url);
  if (url.username || url.password) return 'its address carries credentials';
  const listed = fileHosts.some((h) => host === h || (!net.isIP(host) && host.endsWith(`.${h}`)));
  if (!listed) return `${host} is not a host Steward takes Teams files from`;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(host))) return `its address is not https`;
  return null;
}

/** Why a Connector URL is not fetched with the bot's token, or null: it must be under the activity's serviceUrl. */
export function connectorUrlProblem(serviceUrl: string, url: URL): string | null {
  const base = new URL(serviceUrl);
  const path = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  if (url.username || url.password || url.origin !== base.origin || !url.pathname.startsWith(path)) return `${hostOf(url)}${url.pathname.slice(0, 40)} is not on the Bot Connector that sent the message`;
  return null;
}

/** Follows a few redirects, each target judged by `problemOf` again; `headersFor` decides what each request carries. */
async function download(start: string, problemOf: (u: URL) => string | null, headersFor: (u: URL) => Promise<Record<string, string>>): Promise<{ body: Buffer; contentType: string | null } | { problem: string }> {
  let url: URL;
  try {
    url = new URL(start);
  } catch {
    return { problem: 'its address is not a URL' };
  }
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'its address is not http or https' };
    const problem = problemOf(url);
    if (problem) return { problem: hop ? `redirected: ${problem}` : problem };
    const got = await cappedGet(url, { headers: await headersFor(url), maxBytes: MAX_TEAMS_FILE_BYTES, timeoutMs: TOTAL_MS.media, allowEnv: PROVIDER_ALLOW, tooLarge: TOO_LARGE });
    if ('problem' in got || 'body' in got) return got;
    if (got.status < 300 || got.status >= 400 || !got.location) return { problem: `the download was refused (HTTP ${got.status})` };
    try {
      url = new URL(got.location, url);
    } catch {
      return { problem: 'redirected to an address that is not a URL' };
    }
  }
  return { problem: 'too many redirects' };
}

/** A stored type: the answer's when it says one, else the attachment's, else the name's. */
function typeOf(answered: string | null, declared: string | null, name: string | null): string {
  const t = answered?.split(';')[0]?.trim().toLowerCase();
  if (t && t !== 'application/octet-stream' && !t.endsWith('/*')) return t;
  if (declared && !declared.endsWith('/*')) return declared;
  return (name && mime.lookup(name)) || 'application/octet-stream';
}

/** Fetches the files of a verified activity; `problems` name each one not fetched and why. */
/**
 * The files a message carries, each fetched only when the core asks (after the webhook's answer):
 * its bytes, or why it was not taken. Named by the label the problem is reported under.
 */
export function teamsInboundFiles(cfg: TeamsBotConfig | null, activity: Pick<Activity, 'attachments' | 'serviceUrl'>): InboundFile[] {
  let unnamed = 0;
  return wantedFiles(activity).map((w, i) => {
    const label = w.name ?? (w.kind === 'connector' ? `an image` : 'a file');
    // A shared file's type is its name's until its bytes say otherwise.
    const contentType = w.kind === 'connector' ? w.contentType : (w.kind === 'shared' && mime.lookup(w.name)) || 'application/octet-stream';
    const fetch = async (): Promise<ChannelAttachment | { problem: string }> => {
      if (i >= MAX_TEAMS_FILES) return { problem: `more than ${MAX_TEAMS_FILES} files in one message` };
      if (!cfg) return { problem: 'the Teams bot is switched off' };
      if (w.kind === 'unreadable') return { problem: 'Teams described it in a form Steward does not read' };
      if (w.kind === 'shared') {
        const got = await download(w.url, (u) => sharedUrlProblem(cfg.fileHosts, u), async () => ({}));
        return 'problem' in got ? got : { filename: w.name, contentType: typeOf(got.contentType, null, w.name), content: got.body };
      }
      // The bot's token goes only to the Connector that sent the message.
      const bearer = async (u: URL): Promise<Record<string, string>> => (connectorUrlProblem(activity.serviceUrl, u) ? {} : { Authorization: `Bearer ${await connectorToken(cfg)}` });
      const got = await download(w.url, (u) => connectorUrlProblem(activity.serviceUrl, u), bearer).catch((e: unknown) => ({ problem: `the bot's token for the Bot Connector: ${(e as Error).message}` }));
      if ('problem' in got) return got;
      const type = typeOf(got.contentType, w.contentType, w.name);
      const ext = mime.extension(type);
      return { filename: w.name ?? `${type.startsWith('image/') ? 'image' : 'file'}-${++unnamed}${ext ? `.${ext}` : ''}`, contentType: type, content: got.body };
    };
    return { filename: label, contentType, fetch };
  });
}
