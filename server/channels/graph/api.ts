import { z } from 'zod';
import { ProviderHttpError, providerFetch } from '../providers';
import type { GraphConfig } from './config';

/*
 * The Microsoft Graph mail calls Steward makes (v1.0, the signed-in user `me`), every answer
 * parsed with Zod. Ids are immutable (Prefer: IdType="ImmutableId"), so a message keeps its id
 * when it moves from Drafts to Sent Items, and notifications, delta and reads agree on it.
 */

export type GraphAccess = { cfg: GraphConfig; accessToken: string };

const IMMUTABLE = 'IdType="ImmutableId"';
const GraphError = z.object({ error: z.object({ code: z.string().optional(), message: z.string().optional() }).loose() }).loose();

async function refusal(res: Response, what: string): Promise<ProviderHttpError> {
  const e = GraphError.safeParse(await res.json().catch(() => null));
  const code = e.success ? (e.data.error.code ?? null) : null;
  return new ProviderHttpError('Microsoft Graph', res.status, code, `Microsoft Graph answered ${res.status} to ${what}${e.success && e.data.error.message ? `: ${e.data.error.message}` : ''}`, true);
}

/** A link Graph handed back (nextLink, deltaLink) is followed only under the configured Graph URL: the bearer token goes nowhere else. */
export function ownLink(cfg: GraphConfig, link: string): string {
  if (!link.startsWith(`${cfg.graphUrl}/`)) throw new ProviderHttpError('Microsoft Graph', null, 'foreign_link', 'Microsoft Graph answered with a link outside its own URL; it was not followed', true);
  return link;
}

export async function graphRequest(g: GraphAccess, method: string, pathOrUrl: string, init: { body?: string; contentType?: string; prefer?: string[] } = {}): Promise<Response> {
  const url = pathOrUrl.startsWith('http') ? ownLink(g.cfg, pathOrUrl) : `${g.cfg.graphUrl}${pathOrUrl}`;
  const headers: Record<string, string> = { Authorization: `Bearer ${g.accessToken}`, Prefer: [IMMUTABLE, ...(init.prefer ?? [])].join(', ') };
  if (init.contentType) headers['Content-Type'] = init.contentType;
  const res = await providerFetch('Microsoft Graph', url, { method, headers, body: init.body });
  if (!res.ok) throw await refusal(res, `${method} ${new URL(url).pathname}`);
  return res;
}

async function json<S extends z.ZodType>(res: Response, schema: S, what: string): Promise<z.output<S>> {
  const parsed = schema.safeParse(await res.json().catch(() => null));
  if (!parsed.success) throw new ProviderHttpError('Microsoft Graph', res.status, 'invalid_response', `Microsoft Graph's answer to ${what} was not what its API documents`, true);
  return parsed.data;
}

const Me = z.object({ mail: z.string().nullable().optional(), userPrincipalName: z.string().optional() }).loose();
/** The mailbox's address: `mail`, or the sign-in name when the account has no mail attribute. */
export async function graphAddress(g: GraphAccess): Promise<string> {
  const me = await json(await graphRequest(g, 'GET', '/me?$select=mail,userPrincipalName'), Me, 'GET /me');
  const address = me.mail || me.userPrincipalName;
  if (!address) throw new ProviderHttpError('Microsoft Graph', 200, 'no_address', 'Microsoft Graph reported no address for this mailbox', true);
  return address;
}

const Created = z.object({ id: z.string().min(1), internetMessageId: z.string().nullable().optional() }).loose();
/** A draft from a whole MIME message (base64, text/plain, as Graph documents for MIME): its id, before anything is sent. */
export async function graphCreateMimeDraft(g: GraphAccess, raw: Buffer): Promise<{ id: string }> {
  const res = await graphRequest(g, 'POST', '/me/messages', { body: raw.toString('base64'), contentType: 'text/plain' });
  return json(res, Created, 'POST /me/messages');
}

/** Sends a draft (202 Accepted): Exchange delivers it and files it in Sent Items. */
export async function graphSendDraft(g: GraphAccess, id: string): Promise<void> {
  await graphRequest(g, 'POST', `/me/messages/${encodeURIComponent(id)}/send`, { body: '', contentType: 'application/json' });
}

const Address = z.object({ emailAddress: z.object({ name: z.string().nullable().optional(), address: z.string().nullable().optional() }).loose() }).loose();
const Summary = z
  .object({
    id: z.string().min(1),
    subject: z.string().nullable().optional(),
    from: Address.nullable().optional(),
    receivedDateTime: z.string().nullable().optional(),
    bodyPreview: z.string().nullable().optional(),
    internetMessageId: z.string().nullable().optional(),
  })
  .loose();
const Page = <S extends z.ZodType>(item: S) =>
  z.object({ value: z.array(item), '@odata.nextLink': z.string().optional(), '@odata.deltaLink': z.string().optional() }).loose();

export type GraphSummary = { id: string; from: string | null; subject: string | null; date: string | null; snippet: string };
const summaryOf = (m: z.output<typeof Summary>): GraphSummary => {
  const a = m.from?.emailAddress;
  const from = a?.address ? (a.name ? `${a.name} <${a.address}>` : a.address) : null;
  return { id: m.id, from, subject: m.subject ?? null, date: m.receivedDateTime ?? null, snippet: m.bodyPreview ?? '' };
};

/** Searches the whole mailbox ($search, Graph's KQL-based search), newest first. */
export async function graphSearch(g: GraphAccess, query: string, top: number): Promise<GraphSummary[]> {
  const params = new URLSearchParams({ $search: `"${query.replace(/["\\]/g, ' ')}"`, $top: String(top), $select: 'id,subject,from,receivedDateTime,bodyPreview' });
  const page = await json(await graphRequest(g, 'GET', `/me/messages?${params}`), Page(Summary), 'GET /me/messages');
  return page.value.map(summaryOf);
}

/** The message as MIME ($value): headers as received, Authentication-Results included. */
export async function graphGetMime(g: GraphAccess, id: string): Promise<Buffer> {
  const res = await graphRequest(g, 'GET', `/me/messages/${encodeURIComponent(id)}/$value`);
  return Buffer.from(await res.arrayBuffer());
}

/** The Sent Items message carrying this Message-ID, if Exchange has it: how a send whose answer was lost is found. */
export async function graphFindSent(g: GraphAccess, internetMessageId: string): Promise<string | null> {
  const params = new URLSearchParams({ $filter: `internetMessageId eq '${internetMessageId.replace(/'/g, "''")}'`, $select: 'id', $top: '1' });
  const page = await json(await graphRequest(g, 'GET', `/me/mailFolders/SentItems/messages?${params}`), Page(Summary), 'GET SentItems');
  return page.value[0]?.id ?? null;
}

const DeltaItem = z.object({ id: z.string().min(1), '@removed': z.unknown().optional() }).loose();
/** `cursor`: where the next round starts (the deltaLink, or a nextLink when this round stopped at its page limit). */
export type GraphDelta = { added: string[]; cursor: string };

/**
 * One round of the Inbox's delta query: from the stored deltaLink, or a first round over mail
 * received since `since` (the only filter delta takes). Every page is followed to the deltaLink;
 * an expired link answers 410 (ProviderHttpError status 410): start a first round again.
 */
export async function graphInboxDelta(g: GraphAccess, deltaLink: string | null, since: Date, maxPages = 50): Promise<GraphDelta> {
  const first = `/me/mailFolders/Inbox/messages/delta?${new URLSearchParams({ $select: 'id', $filter: `receivedDateTime ge ${since.toISOString()}` })}`;
  let next: string = deltaLink ?? first;
  const added: string[] = [];
  for (let page = 0; page < maxPages; page++) {
    const res = await json(await graphRequest(g, 'GET', next, { prefer: ['odata.maxpagesize=50'] }), Page(DeltaItem), 'the Inbox delta');
    for (const m of res.value) if (m['@removed'] === undefined) added.push(m.id);
    if (res['@odata.deltaLink']) return { added, cursor: ownLink(g.cfg, res['@odata.deltaLink']) };
    if (!res['@odata.nextLink']) throw new ProviderHttpError('Microsoft Graph', 200, 'invalid_response', 'a page of the Inbox delta had neither a nextLink nor a deltaLink', true);
    next = ownLink(g.cfg, res['@odata.nextLink']);
  }
  return { added, cursor: next };
}
