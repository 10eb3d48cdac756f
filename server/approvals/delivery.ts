import { createHash } from 'node:crypto';
import { and, eq, inArray, isNull, lte, or } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, cartDispatches, cartDispatchVersions, carts, type CartDispatchRow, type DispatchContent } from '@/db/schema';
import type { LinkedFile, OutboundFile } from '@/server/channels/adapter';
import { callingAdapter, portSender } from '@/server/channels/adapters';
import { sendThroughPort } from '@/server/channels/port-send';
import { deliverMail, type MailDelivery } from '@/server/mail/mailer';
import { mailHtml } from '@/server/mail/rich-text';
import { findSentInUserMailbox, recordMailboxSend, sendFromUserMailbox, type MailboxSendRecord, type MailboxSendResult, type MailToSend } from '@/server/mailboxes/send';
import { executeSkillAction } from '@/server/workflows/mcp/execute';
import { mediaLinks } from '@/server/files/media-links';
import { mailAttachments } from '@/server/files/outbound';
import { markContacted } from './contacted';
import { calendarPayloadOf } from '@/server/calendars/dispatch-payload';
import { writeCalendarDispatch } from '@/server/calendars/dispatch';
import { eventOf, invitationIcs, invitationText } from './invitation';

/*
 * One dispatch of a released cart, exactly once (spec document 4, Carts and dispatch). Execution
 * runs three durable steps per dispatch, keyed by the cart, the version released and the index:
 *   1. intent: the Message-ID Steward gives the message is recorded before anything is sent;
 *   2. send: the attempt is claimed (executedAt, in its own committed write), then the message
 *      goes out; the step's result is what the provider said;
 *   3. record: that result becomes the dispatch's delivery state.
 * A finished step is never run again, so a failed record step records the stored answer and
 * sends nothing. A send step that runs again finds its own claim: the earlier attempt stopped
 * somewhere between the claim and its stored result (its process died, or the step ran past its
 * deadline, inngest/step-deadlines.ts), so the message may have left. SMTP has no
 * way to ask a server whether it took a Message-ID, so the state becomes `unknown` (spec: no
 * confirmed delivery record; do not assume either way) and nothing is sent a second time. Email
 * as the user goes from the user's connected mailbox when there is one (server/mailboxes/send.ts),
 * whose Sent folder can be asked: a retried send finds its Message-ID there and is `accepted`.
 */

/** Delivery states this module writes beyond the schema's list; `undone`: the person undid it within its window. */
export const UNDONE: CartDispatchRow['deliveryState'] = 'undone';
/** A released dispatch not sent yet: a send may claim it. */
const SENDABLE: CartDispatchRow['deliveryState'][] = ['staged', 'held'];
/** Dispatches held after release for undo (spec: irreversible actions); an MCP tool that acts cannot be called back either. */
export const IRREVERSIBLE: CartDispatchRow['type'][] = ['email', 'message', 'skill_action', 'call'];

/** One dispatch as execution handles it: the version its release named, and its idempotency key. */
export type DispatchJob = { dispatchId: string; cartId: string; index: number; versionId: string; type: CartDispatchRow['type']; key: string };

export const jobKey = (cartId: string, versionId: string, index: number) => `${cartId}:${versionId}:${index}`;

/** The host a Message-ID names: the sender's domain, as mail clients expect. */
function messageHost(from: string | null): string {
  const domain = from?.split('@')[1]?.replace(/>.*$/, '').trim().toLowerCase();
  if (domain && /^[a-z0-9.-]+$/.test(domain)) return domain;
  try {
    return new URL(process.env.STEWARD_PUBLIC_URL ?? '').hostname || 'steward.local';
  } catch {
    return 'steward.local';
  }
}

/** `<id@host>`, the same for every attempt at one dispatch version: replies (In-Reply-To) and reconciliation find it. */
export const messageIdFor = (key: string, from: string | null) => `<steward.${createHash('sha256').update(key).digest('hex').slice(0, 32)}@${messageHost(from)}>`;

async function contentOf(db: Db, versionId: string): Promise<DispatchContent | null> {
  const [v] = await db.select({ content: cartDispatchVersions.content }).from(cartDispatchVersions).where(eq(cartDispatchVersions.id, versionId));
  return v?.content ?? null;
}

export type Intent = { go: true; messageId: string | null } | { go: false; state: string } | { go: false; heldUntil: string };

/** Step 1: the Message-ID is recorded before sending (kept if an earlier attempt recorded it). Not sendable (undone, final): nothing to do. */
export async function recordIntent(db: Db, job: DispatchJob, now = new Date()): Promise<Intent> {
  const [row] = await db.select().from(cartDispatches).where(eq(cartDispatches.id, job.dispatchId));
  if (!row || row.removedAt || !SENDABLE.includes(row.deliveryState)) return { go: false, state: row?.deliveryState ?? 'removed' };
  if (row.holdUntil && row.holdUntil > now && !row.executedAt) return { go: false, heldUntil: row.holdUntil.toISOString() };
  if (row.type !== 'email' && row.type !== 'calendar_event') return { go: true, messageId: null };
  if (row.providerMessageId) return { go: true, messageId: row.providerMessageId };
  const content = await contentOf(db, job.versionId);
  const messageId = messageIdFor(job.key, content?.from ?? null);
  await db
    .update(cartDispatches)
    .set({ providerMessageId: messageId })
    .where(and(eq(cartDispatches.id, job.dispatchId), isNull(cartDispatches.providerMessageId)));
  return { go: true, messageId };
}

export type SendResult =
  /** `mailbox`: sent from the user's connected mailbox, with the provider's own id (kept by the record step). */
  | { outcome: 'accepted'; providerMessageId: string | null; detail: string; mailbox?: MailboxSendRecord }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'unknown'; reason: string }
  /** Nothing was sent by this step: undone within the window, removed, or already settled. */
  | { outcome: 'skipped'; state: string };

const RETRIED_SEND =
  'A send of it had begun and its result was never recorded (the process stopped, lost the answer, or the send ran past its deadline): it may or may not have been delivered, so it was not sent again';

/**
 * Step 2: claims the attempt (only one ever succeeds: the dispatch must be sendable, out of its
 * undo window, and never attempted), commits the claim, then sends. No write follows the send:
 * the step's stored result carries the answer to step 3.
 */
export async function sendDispatch(db: Db, job: DispatchJob, now = new Date()): Promise<SendResult> {
  const [claimed] = await db
    .update(cartDispatches)
    .set({ executedAt: now })
    .where(
      and(
        eq(cartDispatches.id, job.dispatchId),
        isNull(cartDispatches.executedAt),
        isNull(cartDispatches.removedAt),
        inArray(cartDispatches.deliveryState, SENDABLE),
        or(isNull(cartDispatches.holdUntil), lte(cartDispatches.holdUntil, now)),
      ),
    )
    .returning();
  if (!claimed) {
    const [row] = await db.select().from(cartDispatches).where(eq(cartDispatches.id, job.dispatchId));
    if (row && row.executedAt && SENDABLE.includes(row.deliveryState))
      return (await foundInMailbox(db, job, row)) ?? (await reconciledInCalendar(db, job, row, now)) ?? { outcome: 'unknown', reason: RETRIED_SEND };
    return { outcome: 'skipped', state: row?.deliveryState ?? 'removed' };
  }
  const content = await contentOf(db, job.versionId);
  if (!content) return { outcome: 'failed', reason: 'The released version of the action no longer exists' };
  // What was approved was declared valid until a time (spec 2, Dispatch: validUntil): past it, the
  // action is not what the person agreed to any more (a "see you at 3 pm" sent at 5), so it fails
  // with the reason rather than going late. Evergreen (or no validity declared) never expires.
  const expired = expiredAt(content, now);
  if (expired) return { outcome: 'failed', reason: `expired: it was valid until ${expired}, and was not sent after that` };
  try {
    return await deliver(db, job, claimed, content, now);
  } catch (e) {
    // Whatever threw did so before anything left (each channel reports its own send): nothing was sent.
    return { outcome: 'failed', reason: `The action could not be prepared: ${(e as Error).message}` };
  }
}

/** The declared end of validity when it has passed (evergreen never expires); null otherwise. */
export function expiredAt(content: Pick<DispatchContent, 'validUntil' | 'evergreen'>, now: Date): string | null {
  if (content.evergreen || !content.validUntil) return null;
  const until = Date.parse(content.validUntil);
  return Number.isFinite(until) && until <= now.getTime() ? content.validUntil : null;
}

const fromMail = (d: MailDelivery, messageId: string): SendResult =>
  d.outcome === 'accepted'
    ? { outcome: 'accepted', providerMessageId: messageId, detail: d.rejected.length ? `accepted; refused recipients: ${d.rejected.join(', ')}` : 'accepted by the SMTP server' }
    : d;

const ownerOf = async (db: Db, cartId: string) => (await db.select({ accountId: carts.accountId, userId: carts.userId }).from(carts).where(eq(carts.id, cartId)))[0] ?? null;

/** The HTML signature of the assistant that wrote the cart's mail, when it keeps one (null: its signature is text, or it has none). */
async function htmlSignatureOf(db: Db, cartId: string): Promise<string | null> {
  const [row] = await db
    .select({ signature: assistants.signature, mode: assistants.signatureEditorMode })
    .from(carts)
    .innerJoin(assistants, eq(assistants.id, carts.assistantId))
    .where(eq(carts.id, cartId));
  return row?.mode === 'html' && row.signature?.trim() ? row.signature : null;
}

const fromMailbox = (r: MailboxSendResult, messageId: string): SendResult =>
  r.outcome === 'accepted' ? { outcome: 'accepted', providerMessageId: messageId, detail: r.detail, mailbox: r.record } : r;

/**
 * Email as the user goes from their connected mailbox (Gmail, Microsoft 365) when they have one,
 * under the same Message-ID; null without one: the SMTP path as before.
 */
async function sendFromMailbox(db: Db, job: DispatchJob, content: DispatchContent, messageId: string, attachments: MailToSend['attachments'] = []): Promise<SendResult | null> {
  const owner = await ownerOf(db, job.cartId);
  if (!owner) return null;
  const text = content.body ?? '';
  const mail: MailToSend = { to: content.to, cc: content.cc, bcc: content.bcc, subject: content.subject ?? '', text, html: mailHtml(text, null), messageId, attachments };
  const sent = await sendFromUserMailbox(db, owner, mail);
  return sent && fromMailbox(sent, messageId);
}

/** A retried email_as_user send looks in the user's Sent folder for its Message-ID: found, it was sent; else it stays `unknown`. */
async function foundInMailbox(db: Db, job: DispatchJob, row: CartDispatchRow): Promise<SendResult | null> {
  if (row.type !== 'email' || row.actionType !== 'email_as_user' || !row.providerMessageId) return null;
  const owner = await ownerOf(db, job.cartId);
  const found = owner && (await findSentInUserMailbox(db, owner, row.providerMessageId));
  return found ? fromMailbox(found, row.providerMessageId) : null;
}

/**
 * A retried calendar write reconciles with the calendar (server/calendars/dispatch.ts): a create
 * finds its UID there, a change or cancel is tried again under the etag read. Null when the event
 * went as an invitation by email (SMTP cannot be asked): the send stays `unknown`.
 */
async function reconciledInCalendar(db: Db, job: DispatchJob, row: CartDispatchRow, now: Date): Promise<SendResult | null> {
  if (row.type !== 'calendar_event') return null;
  const [owner, content] = await Promise.all([ownerOf(db, job.cartId), contentOf(db, job.versionId)]);
  return owner && content ? writeCalendarDispatch(db, owner, content, { retry: true, now }) : null;
}

/** A message dispatch that carries an approved template (`payload.template {id, variables}`: WhatsApp outside its 24-hour window) instead of free text. */
function templateOf(content: DispatchContent): { id: string; variables: Record<string, string> } | null {
  const t = (content.payload as { template?: { id?: unknown; variables?: unknown } } | null)?.template;
  if (!t || typeof t.id !== 'string' || !t.id) return null;
  const vars = t.variables && typeof t.variables === 'object' ? Object.fromEntries(Object.entries(t.variables as Record<string, unknown>).map(([k, v]) => [k, String(v)])) : {};
  return { id: t.id, variables: vars };
}

async function deliver(db: Db, job: DispatchJob, row: CartDispatchRow, content: DispatchContent, now: Date): Promise<SendResult> {
  const messageId = row.providerMessageId ?? messageIdFor(job.key, content.from);
  // A message goes through its channel's adapter behind the port, files included when it carries them.
  if (row.type === 'message' && portSender(content.platform)) return sendPortDispatch(db, job, row, content, now);
  // Files travel as attachments of an email, or with a message (links or bytes, as its channel takes them); no other action carries them.
  if (content.files.length && row.type !== 'email' && row.type !== 'message') return { outcome: 'failed', reason: `A ${row.type.replace('_', ' ')} cannot carry files: nothing was sent` };
  if (row.type === 'email') {
    if (!content.from) return { outcome: 'failed', reason: 'The sender has no email address: nothing was sent' };
    if (!content.to.length && !content.cc.length && !content.bcc.length) return { outcome: 'failed', reason: 'The email has no recipient' };
    // The files the person approved, read before anything is sent: one that is gone fails the email whole.
    const owner = content.files.length ? await ownerOf(db, job.cartId) : null;
    const files = owner ? await mailAttachments(db, owner, content.files) : { attachments: [] };
    if ('problem' in files) return { outcome: 'failed', reason: `Not sent: ${files.problem}` };
    const attachments = files.attachments.length ? { attachments: files.attachments } : {};
    if (row.actionType === 'email_as_user') {
      const viaMailbox = await sendFromMailbox(db, job, content, messageId, files.attachments);
      if (viaMailbox) return viaMailbox;
    }
    // Text and the same words as HTML; the assistant's own mail signs with its HTML signature (mail sent as the user is theirs: none).
    const text = content.body ?? '';
    const html = mailHtml(text, row.actionType === 'email_as_user' ? null : await htmlSignatureOf(db, job.cartId));
    const sent = await deliverMail({ from: content.from, to: content.to, cc: content.cc, bcc: content.bcc, subject: content.subject ?? '', text, html, messageId, ...attachments });
    return fromMail(sent, messageId);
  }
  if (row.type === 'calendar_event') {
    // Written to the user's own calendar when they have one connected (its provider invites the attendees); else an invitation by email.
    const owner = await ownerOf(db, job.cartId);
    const written = owner ? await writeCalendarDispatch(db, owner, content, { now }) : null;
    if (written) return written;
    const event = eventOf(content);
    if ('problem' in event) return { outcome: 'failed', reason: `The invitation was not sent: ${event.problem}` };
    const p = calendarPayloadOf(content.payload);
    const operation = 'problem' in p ? 'create' : p.operation;
    if (!content.from) return { outcome: 'failed', reason: 'The organizer has no email address: the invitation was not sent' };
    if (!content.to.length) return { outcome: 'failed', reason: 'The event has no attendee to invite' };
    const [cart] = await db.select({ name: assistants.name }).from(carts).leftJoin(assistants, eq(assistants.id, carts.assistantId)).where(eq(carts.id, job.cartId));
    // The UID chosen at staging names the event for a later change or cancellation (older dispatches: their own id).
    const uid = ('problem' in p ? null : p.uid) ?? `${row.id}@${messageHost(content.from)}`;
    const sequence = 'problem' in p ? 0 : (p.sequence ?? 0);
    const cancel = operation === 'cancel';
    const ics = invitationIcs({ uid, event, organizer: { name: cart?.name ?? content.from, email: content.from }, attendees: content.to, now, cancel, sequence });
    const sent = await deliverMail({
      from: content.from,
      to: content.to,
      cc: [],
      bcc: [],
      subject: `${cancel ? 'Cancelled' : operation === 'update' ? 'Updated invitation' : 'Invitation'}: ${event.title}`,
      text: invitationText(event, { operation, message: 'problem' in p ? null : p.message }),
      messageId,
      calendar: { method: cancel ? 'CANCEL' : 'REQUEST', content: ics },
    });
    return fromMail(sent, messageId);
  }
  if (row.type === 'message') return { outcome: 'failed', reason: `no provider configured for ${content.platform}` };
  if (row.type === 'call') {
    // place_call: dialled once through the voice provider, which records its intent under the job's key (a retry never dials again).
    if (content.to.length !== 1) return { outcome: 'failed', reason: 'A call goes to exactly one number: nobody was called' };
    const [cart] = await db.select({ accountId: carts.accountId, assistantId: carts.assistantId, userId: carts.userId, taskId: carts.taskId }).from(carts).where(eq(carts.id, job.cartId));
    if (!cart) return { outcome: 'failed', reason: 'The cart no longer exists: nobody was called' };
    const payload = (content.payload ?? {}) as { purpose?: unknown; mayAgree?: unknown; referBack?: unknown; onMachine?: unknown };
    const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
    const voice = callingAdapter('voice');
    if (!voice?.configured()) return { outcome: 'failed', reason: 'no provider configured for voice' };
    const placed = await voice.placeCall(db, {
      to: content.to[0]!,
      purpose: typeof payload.purpose === 'string' ? payload.purpose : (content.description ?? ''),
      script: content.body ?? '',
      asUser: row.actionType === 'voice_call_as_user',
      idempotencyKey: job.key,
      accountId: cart.accountId,
      assistantId: cart.assistantId,
      userId: cart.userId,
      taskId: cart.taskId,
      dispatchId: row.id,
      // The approved dispatch's bounds (issue 48): a live call pursues its purpose within them.
      terms: {
        mayAgree: text(payload.mayAgree),
        referBack: text(payload.referBack),
        onMachine: payload.onMachine === 'hangup' ? 'hangup' : 'voicemail',
        asUser: row.actionType === 'voice_call_as_user',
      },
    });
    return placed.state === 'failed' || placed.state === 'unknown' ? { outcome: placed.state, reason: placed.reason } : { outcome: 'accepted', providerMessageId: placed.providerMessageId, detail: 'the call was placed (the provider is dialling)' };
  }
  if (row.type === 'skill_action') {
    // An installed MCP skill's acting tool: called once (this attempt holds the claim), its answer recorded.
    const done = await executeSkillAction(db, { id: row.id, cartId: job.cartId }, content);
    return done.outcome === 'accepted' ? { outcome: 'accepted', providerMessageId: null, detail: done.detail } : done;
  }
  return { outcome: 'failed', reason: `Dispatches of type ${row.type} cannot be executed: nothing was sent` };
}

/** The approved files as the channel takes them: links to sign (fileLinks), or bytes. */
async function approvedFiles(db: Db, cart: { accountId: string; userId: string }, content: DispatchContent, now: Date): Promise<{ files: OutboundFile[] } | { links: LinkedFile[] } | { problem: string }> {
  if (!content.files.length) return { files: [] };
  if (portSender(content.platform)?.capabilities.fileLinks) {
    const signed = await mediaLinks(db, cart, content.files, now);
    if ('problem' in signed) return signed;
    return { links: content.files.map((f, i) => ({ filename: f.filename, contentType: f.mimeType, url: signed.urls[i]! })) };
  }
  const read = await mailAttachments(db, cart, content.files);
  return 'problem' in read ? read : { files: read.attachments };
}

/** send_message on a port channel: as the staging assistant's own connection, to one chat or person, with the approved files. */
async function sendPortDispatch(db: Db, job: DispatchJob, row: CartDispatchRow, content: DispatchContent, now: Date): Promise<SendResult> {
  if (content.to.length !== 1) return { outcome: 'failed', reason: 'A message goes to exactly one recipient' };
  const [cart] = await db.select({ accountId: carts.accountId, userId: carts.userId, assistantId: carts.assistantId }).from(carts).where(eq(carts.id, job.cartId));
  if (!cart) return { outcome: 'failed', reason: 'The cart no longer exists: nothing was sent' };
  // The files the person approved, checked before anything is sent (one gone since fails the message
  // whole): a signed link each when the provider fetches them (Twilio's MMS and WhatsApp media), whose
  // bytes are then never read here; else their bytes.
  const files = await approvedFiles(db, cart, content, now);
  if ('problem' in files) return { outcome: 'failed', reason: `Not sent: ${files.problem}` };
  const to = content.to[0]!;
  const thread = to.startsWith(`${content.platform}:`) ? to : null;
  // The job's key names the send: an adapter that records its intent (texts) never sends it twice.
  const d = await sendThroughPort(db, {
    channel: content.platform,
    assistantId: cart.assistantId,
    kind: 'dispatch',
    thread,
    to: thread ? null : to,
    text: content.body ?? '',
    ...files,
    ref: job.key,
    dispatchId: row.id,
    template: templateOf(content),
  });
  if (d.state === 'accepted' || d.state === 'delivered') return { outcome: 'accepted', providerMessageId: d.providerMessageId, detail: `accepted by the ${content.platform} provider` };
  return d.state === 'unknown' ? { outcome: 'unknown', reason: d.reason } : { outcome: 'failed', reason: 'reason' in d ? d.reason : 'not sent' };
}

/**
 * Step 3: the answer becomes the delivery state. A definite answer (accepted, failed) replaces
 * `unknown` (a second attempt of the same dispatch that only saw the claim); `unknown` never
 * replaces a definite answer.
 */
export async function recordOutcome(db: Db, job: DispatchJob, result: SendResult): Promise<{ deliveryState: string }> {
  if (result.outcome === 'skipped') return { deliveryState: result.state };
  const from: CartDispatchRow['deliveryState'][] = result.outcome === 'unknown' ? SENDABLE : [...SENDABLE, 'unknown'];
  const set =
    result.outcome === 'accepted'
      ? { deliveryState: 'provider_accepted' as const, providerMessageId: result.providerMessageId, failureReason: null }
      : { deliveryState: result.outcome, failureReason: result.reason };
  const [row] = await db
    .update(cartDispatches)
    .set(set)
    .where(and(eq(cartDispatches.id, job.dispatchId), inArray(cartDispatches.deliveryState, from)))
    .returning({ deliveryState: cartDispatches.deliveryState });
  if (result.outcome === 'accepted' && result.mailbox) await recordMailboxSend(db, job.dispatchId, result.mailbox);
  if (result.outcome === 'accepted' && row) await markContacted(db, job.cartId, job.versionId);
  if (row) return row;
  const [now] = await db.select({ deliveryState: cartDispatches.deliveryState }).from(cartDispatches).where(eq(cartDispatches.id, job.dispatchId));
  return { deliveryState: now?.deliveryState ?? 'removed' };
}
