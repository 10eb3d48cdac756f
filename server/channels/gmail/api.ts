import { z } from 'zod';
import { ProviderHttpError, providerFetch } from '../providers';
import type { GmailConfig } from './config';

/*
 * The Gmail API calls Steward makes (REST v1, the authenticated user `me`), every answer parsed
 * with Zod: the profile (address and the history id to poll from), users.messages.send with a
 * raw RFC 822 message, users.messages.list and get, and users.history.list for new mail.
 */

export type GmailAccess = { cfg: GmailConfig; accessToken: string };

const GoogleError = z.object({ error: z.object({ code: z.number().optional(), message: z.string().optional(), status: z.string().optional() }).loose() }).loose();

async function call<S extends z.ZodType>(g: GmailAccess, path: string, schema: S, init: { method?: string; query?: Record<string, string | string[]>; json?: unknown } = {}): Promise<z.output<S>> {
  const url = new URL(`${g.cfg.apiUrl}/gmail/v1/users/me${path}`);
  for (const [k, v] of Object.entries(init.query ?? {})) for (const one of [v].flat()) url.searchParams.append(k, one);
  const res = await providerFetch('Gmail', url.toString(), {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${g.accessToken}`, Accept: 'application/json', ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const e = GoogleError.safeParse(body);
    const status = e.success ? (e.data.error.status ?? null) : null;
    throw new ProviderHttpError('Gmail', res.status, status, `Gmail answered ${res.status}${e.success && e.data.error.message ? `: ${e.data.error.message}` : ''}`, true);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ProviderHttpError('Gmail', res.status, 'invalid_response', `Gmail's answer to ${path} was not what its API documents`, true);
  return parsed.data;
}

const Profile = z.object({ emailAddress: z.string().min(3), historyId: z.coerce.string() }).loose();
export const gmailProfile = (g: GmailAccess) => call(g, '/profile', Profile);

const SentMessage = z.object({ id: z.string().min(1), threadId: z.string().optional(), labelIds: z.array(z.string()).optional() }).loose();
/** users.messages.send: the message exactly as built (base64url of RFC 822), which Gmail files in Sent. */
export const gmailSend = (g: GmailAccess, raw: Buffer) => call(g, '/messages/send', SentMessage, { method: 'POST', json: { raw: raw.toString('base64url') } });

const MessageList = z
  .object({ messages: z.array(z.object({ id: z.string().min(1), threadId: z.string().optional() }).loose()).optional(), nextPageToken: z.string().optional() })
  .loose();
/** users.messages.list with Gmail's search syntax (`q`). */
export async function gmailList(g: GmailAccess, q: string, maxResults: number): Promise<string[]> {
  const list = await call(g, '/messages', MessageList, { query: { q, maxResults: String(maxResults) } });
  return (list.messages ?? []).map((m) => m.id);
}

const RawMessage = z
  .object({ id: z.string().min(1), threadId: z.string().optional(), labelIds: z.array(z.string()).optional(), raw: z.string().min(1), internalDate: z.string().optional() })
  .loose();
export type GmailRawMessage = { id: string; labelIds: string[]; raw: Buffer };
/** users.messages.get with format=raw: the whole message as received (headers, Authentication-Results included). */
export async function gmailGetRaw(g: GmailAccess, id: string): Promise<GmailRawMessage> {
  const m = await call(g, `/messages/${encodeURIComponent(id)}`, RawMessage, { query: { format: 'raw' } });
  return { id: m.id, labelIds: m.labelIds ?? [], raw: Buffer.from(m.raw, 'base64url') };
}

const Header = z.object({ name: z.string(), value: z.string() });
const MetadataMessage = z
  .object({
    id: z.string().min(1),
    labelIds: z.array(z.string()).optional(),
    snippet: z.string().optional(),
    internalDate: z.string().optional(),
    payload: z.object({ headers: z.array(Header).optional() }).loose().optional(),
  })
  .loose();
export type GmailSummary = { id: string; from: string | null; to: string | null; subject: string | null; date: string | null; snippet: string; labelIds: string[] };
/** users.messages.get with format=metadata: the headers a list shows and Gmail's snippet. */
export async function gmailGetSummary(g: GmailAccess, id: string): Promise<GmailSummary> {
  const m = await call(g, `/messages/${encodeURIComponent(id)}`, MetadataMessage, { query: { format: 'metadata', metadataHeaders: ['From', 'To', 'Subject', 'Date'] } });
  const header = (name: string) => m.payload?.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value ?? null;
  const at = m.internalDate ? new Date(Number(m.internalDate)) : null;
  return {
    id: m.id,
    from: header('From'),
    to: header('To'),
    subject: header('Subject'),
    date: at && !Number.isNaN(at.getTime()) ? at.toISOString() : header('Date'),
    snippet: m.snippet ?? '',
    labelIds: m.labelIds ?? [],
  };
}

const HistoryPage = z
  .object({
    history: z
      .array(z.object({ id: z.coerce.string(), messagesAdded: z.array(z.object({ message: z.object({ id: z.string().min(1), labelIds: z.array(z.string()).optional() }).loose() })).optional() }).loose())
      .optional(),
    nextPageToken: z.string().optional(),
    historyId: z.coerce.string(),
  })
  .loose();
export type GmailHistory = { added: Array<{ id: string; labelIds: string[] }>; historyId: string };

/**
 * users.history.list from a stored history id, for messages added to the inbox, every page. A
 * history id too old for Gmail answers 404 (ProviderHttpError status 404): start again from the
 * profile's.
 */
export async function gmailHistory(g: GmailAccess, startHistoryId: string, maxPages = 20): Promise<GmailHistory> {
  const added: GmailHistory['added'] = [];
  let pageToken: string | undefined;
  let lastRecord = startHistoryId;
  for (let page = 0; page < maxPages; page++) {
    const query: Record<string, string> = { startHistoryId, historyTypes: 'messageAdded', labelId: 'INBOX', maxResults: '500' };
    if (pageToken) query.pageToken = pageToken;
    const res = await call(g, '/history', HistoryPage, { query });
    for (const h of res.history ?? []) {
      lastRecord = h.id;
      for (const a of h.messagesAdded ?? []) added.push({ id: a.message.id, labelIds: a.message.labelIds ?? [] });
    }
    pageToken = res.nextPageToken;
    // The answer's historyId is the mailbox's latest: the next poll starts there once every page is read.
    if (!pageToken) return { added, historyId: res.historyId };
  }
  // Pages left over: the next poll goes on after the last record read here.
  return { added, historyId: lastRecord };
}
