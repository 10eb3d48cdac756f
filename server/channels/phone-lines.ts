import { and, desc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { assistants, phoneChannels, phoneLineRequests, phoneLines, users, type TextChannel } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, conflict, notFound } from '@/server/http/errors';
import { normalizeValue } from '@/server/identifiers/normalize';
import { logger } from '@/server/logger';
import type { PhoneLineRequestBody } from './contracts';
import { twilioConfig } from './twilio/config';
import { attemptPurchase, duePurchases } from './phone-line-purchase';
import { ADMIN_CLI, recordAudit, SYSTEM } from '@/server/audit/record';
import { assertOperates, isActor, type AccountOperator } from '@/server/accounts/operator';

/*
 * Phone lines (spec 1, Phone lines; spec 5, Identifier verification and phone lines): a user asks
 * for numbers for their primary assistant; the request is fulfilled by the operator
 * (`assign-phone-line`) or a console member, or by Steward buying a number through Twilio when
 * STEWARD_TWILIO_PROVISION=1, or dismissed (`dismiss-phone-line`). A fulfilled request puts the
 * number under the assistant's `channels` (voice on the same number as iMessage, spec 1) and in
 * `phone_lines`, which names the assistant an inbound text is for; the user is told (a notice,
 * through the hook the entry floor fills: notices live above this area).
 */

const PHONE_CHANNELS = phoneChannels;
export type PhoneChannel = (typeof PHONE_CHANNELS)[number];

type RequestRow = typeof phoneLineRequests.$inferSelect;

export const toPublic = (r: RequestRow) => ({
  id: r.id,
  assistant: r.assistantId,
  requestedChannels: r.requestedChannels,
  notes: r.notes,
  status: r.status,
  ...(r.status === 'dismissed' ? { dismissalReason: r.dismissalReason } : {}),
  createdAt: r.createdAt.toISOString(),
});

export type LineFulfilled = (tx: Tx, line: { accountId: string; userId: string; assistantId: string; requestId: string; number: string; channels: PhoneChannel[] }) => Promise<void>;
let fulfilled: LineFulfilled | null = null;

/** The entry floor registers what follows a fulfilled request (server/compose/channels.ts: a notice to the user). */
export function registerLineFulfilled(fn: LineFulfilled | null): void {
  fulfilled = fn;
}

/** The active line an assistant texts (or calls: `voice`) from on a channel, with its account, or null. */
export async function activeLine(tx: Tx, assistantId: string, channel: TextChannel | 'voice'): Promise<{ accountId: string; number: string } | null> {
  const [row] = await tx
    .select({ accountId: phoneLines.accountId, number: phoneLines.number })
    .from(phoneLines)
    .where(and(eq(phoneLines.assistantId, assistantId), eq(phoneLines.status, 'active'), sql`${phoneLines.channels} @> ${JSON.stringify([channel])}::jsonb`))
    .orderBy(desc(phoneLines.createdAt))
    .limit(1);
  return row ?? null;
}

/** The active number an assistant texts (or calls: `voice`) from on a channel, or null. */
export const activeLineFor = async (tx: Tx, assistantId: string, channel: TextChannel | 'voice'): Promise<string | null> => (await activeLine(tx, assistantId, channel))?.number ?? null;

/** Whose number this is on a channel: the line an inbound text (or call: `voice`) reached. */
export async function lineForNumber(tx: Tx, number: string, channel: TextChannel | 'voice'): Promise<{ accountId: string; assistantId: string; number: string } | null> {
  const [row] = await tx
    .select({ accountId: phoneLines.accountId, assistantId: phoneLines.assistantId, number: phoneLines.number })
    .from(phoneLines)
    .where(and(eq(phoneLines.number, number), eq(phoneLines.status, 'active'), sql`${phoneLines.channels} @> ${JSON.stringify([channel])}::jsonb`))
    .limit(1);
  return row ?? null;
}

/** `--channels sms,whatsapp`: the listed channels, or those the request asked for (all four when it asked for none). */
export function channelsOf(list: string | null | undefined, requested: RequestRow['requestedChannels']): PhoneChannel[] {
  if (list) {
    const names = list.split(',').map((c) => c.trim().toLowerCase()).filter(Boolean);
    const bad = names.filter((c) => !(PHONE_CHANNELS as readonly string[]).includes(c));
    if (bad.length || !names.length) throw badRequest(`--channels: ${bad.length ? `unknown ${bad.join(', ')}; ` : ''}use a comma-separated list of ${PHONE_CHANNELS.join(', ')}`);
    return [...new Set(names)] as PhoneChannel[];
  }
  const asked = PHONE_CHANNELS.filter((c) => requested[c]);
  return asked.length ? [...asked] : [...PHONE_CHANNELS];
}

/**
 * Whether calls on a new voice line begin with the recording disclosure (the transcript of every
 * call is kept): on unless the operator turns it off (STEWARD_VOICE_RECORDING_DISCLOSURE=0).
 */
export const recordingDisclosureDefault = (env: Record<string, string | undefined> = process.env) => env.STEWARD_VOICE_RECORDING_DISCLOSURE?.trim() !== '0';

/**
 * channels.voice.status (spec 1 lists the values, Steward decides the moves): `none` → `provisioning`
 * when a request asks for voice; → `active` when a line with voice is assigned (or bought);
 * `provisioning` → `failed` when the request is dismissed or fulfilled without voice. A new request
 * for voice moves `failed` (or `none`) to `provisioning` again; an active line stays active.
 */
async function setVoiceStatus(tx: Tx, assistantId: string, status: 'provisioning' | 'failed', onlyFrom: string[]) {
  await tx
    .update(assistants)
    .set({
      channels: sql`${assistants.channels} || jsonb_build_object('voice', coalesce(${assistants.channels}->'voice', '{}'::jsonb) || jsonb_build_object('status', ${status}::text, 'recordingDisclosure', coalesce((${assistants.channels}->'voice'->>'recordingDisclosure')::boolean, ${recordingDisclosureDefault()}::boolean)))`,
    })
    .where(and(eq(assistants.id, assistantId), sql`coalesce(${assistants.channels}->'voice'->>'status', 'none') IN (${sql.join(onlyFrom.map((v) => sql`${v}`), sql`, `)})`));
}

/** The assistant's `channels` with this number on each of them (voice: the line's status). */
async function showOnAssistant(tx: Tx, assistantId: string, number: string, channels: PhoneChannel[], now: Date) {
  const patch: Record<string, unknown> = {};
  for (const c of channels) {
    if (c === 'voice') patch.voice = { status: 'active', provisionedAt: now.toISOString(), recordingDisclosure: recordingDisclosureDefault(), number };
    else patch[c] = number;
  }
  await tx
    .update(assistants)
    .set({ channels: sql`${assistants.channels} || ${JSON.stringify(patch)}::jsonb` })
    .where(eq(assistants.id, assistantId));
}

/** A request still to answer; an actor (the console) reaches only its own account's (404 otherwise). */
async function pendingRequest(tx: Tx, requestId: string, by: AccountOperator): Promise<RequestRow> {
  const [request] = await tx.select().from(phoneLineRequests).where(eq(phoneLineRequests.id, requestId)).for('update');
  if (!request || (isActor(by) && request.accountId !== by.accountId)) throw notFound('Phone-line request');
  assertOperates(by, request.accountId);
  if (request.status !== 'pending') throw conflict(`The request is already ${request.status}`, { request: toPublic(request) }, 'request_not_pending');
  return request;
}

/**
 * Fulfils a pending request with a number: the line, the assistant's channels, the request
 * `fulfilled` and the user's notice, in one transaction. A number already active on another line
 * is 409; a number that is not E.164 (or national with the user's country) 400.
 */
export async function assignPhoneLine(
  db: Db,
  input: { requestId: string; number: string; channels?: string | null; source?: 'operator' | 'twilio'; providerSid?: string | null; by?: AccountOperator },
  now = new Date(),
) {
  // Who fulfils it for the audit log: the console member or the operator, or Steward itself when it bought the number.
  const by = input.by ?? (input.source === 'twilio' ? SYSTEM : ADMIN_CLI);
  return db.transaction(async (tx) => {
    const request = await pendingRequest(tx, input.requestId, by);
    const [user] = await tx.select({ country: users.country }).from(users).where(eq(users.id, request.userId));
    const number = normalizeValue('phone', input.number, user?.country ?? null);
    const channels = channelsOf(input.channels, request.requestedChannels);
    const [taken] = await tx.select({ id: phoneLines.id }).from(phoneLines).where(and(eq(phoneLines.number, number), eq(phoneLines.status, 'active')));
    if (taken) throw conflict(`${number} is already the number of another line`, {}, 'number_in_use');
    await tx.insert(phoneLines).values({
      accountId: request.accountId,
      assistantId: request.assistantId,
      requestId: request.id,
      number,
      channels,
      source: input.source ?? 'operator',
      providerSid: input.providerSid ?? null,
    });
    await showOnAssistant(tx, request.assistantId, number, channels, now);
    if (request.requestedChannels.voice && !channels.includes('voice')) await setVoiceStatus(tx, request.assistantId, 'failed', ['provisioning']);
    const [done] = await tx.update(phoneLineRequests).set({ status: 'fulfilled' }).where(eq(phoneLineRequests.id, request.id)).returning();
    if (fulfilled) await fulfilled(tx, { accountId: request.accountId, userId: request.userId, assistantId: request.assistantId, requestId: request.id, number, channels });
    await recordAudit(tx, by, 'phone_line.assigned', { type: 'phone_line_request', id: request.id }, { accountId: request.accountId, after: { userId: request.userId, assistantId: request.assistantId, number, channels, source: input.source ?? 'operator' } });
    return { ok: true as const, request: toPublic(done!), line: { number, channels } };
  });
}

/** `dismiss-phone-line`: a pending request is closed without a number, with the reason shown to the user. */
export async function dismissPhoneLine(db: Db, input: { requestId: string; reason?: string | null; by?: AccountOperator }) {
  const by = input.by ?? ADMIN_CLI;
  return db.transaction(async (tx) => {
    const request = await pendingRequest(tx, input.requestId, by);
    const reason = input.reason?.trim() || 'Dismissed by the operator';
    const [done] = await tx.update(phoneLineRequests).set({ status: 'dismissed', dismissalReason: reason.slice(0, 500) }).where(eq(phoneLineRequests.id, request.id)).returning();
    if (request.requestedChannels.voice) await setVoiceStatus(tx, request.assistantId, 'failed', ['provisioning']);
    await recordAudit(tx, by, 'phone_line.dismissed', { type: 'phone_line_request', id: request.id }, { accountId: request.accountId, after: { userId: request.userId, reason: done!.dismissalReason } });
    return { ok: true as const, request: toPublic(done!) };
  });
}

/**
 * With STEWARD_TWILIO_PROVISION=1 a new request is fulfilled by buying a number (in the user's
 * country, the notes' area code if any). iMessage lines come from the iMessage provider, which
 * sells none through an API: a request for iMessage alone waits for the operator, and a bought
 * number serves the other channels asked for. A failure is tried again later with backoff
 * (phone-line-purchase.ts); after the last attempt the request waits for the operator.
 */
async function purchaseFor(db: Db, request: RequestRow, country: string | null, now = new Date()): Promise<'bought' | 'failed' | 'skipped'> {
  const wanted = channelsOf(null, request.requestedChannels).filter((c) => c !== 'imessage');
  if (!wanted.length) return 'skipped';
  return attemptPurchase(
    db,
    request.id,
    { country: country ?? 'US', notes: request.notes, voice: wanted.includes('voice') },
    async (bought) => {
      await assignPhoneLine(db, { requestId: request.id, number: bought.number, channels: wanted.join(','), source: 'twilio', providerSid: bought.sid }, now);
    },
    now,
  );
}

async function provisionIfConfigured(db: Db, request: RequestRow, country: string | null): Promise<RequestRow> {
  if (!twilioConfig()?.provision) return request;
  await purchaseFor(db, request, country);
  const [row] = await db.select().from(phoneLineRequests).where(eq(phoneLineRequests.id, request.id));
  return row ?? request;
}

/** The retries that are due (the `phone-line-purchases` function, every 5 minutes): each request's next purchase attempt. */
export async function retryDuePurchases(db: Db, now = new Date()): Promise<{ bought: number; failed: number }> {
  const result = { bought: 0, failed: 0 };
  for (const { request, country } of await duePurchases(db, now)) {
    const outcome = await purchaseFor(db, request, country, now).catch((err) => {
      logger.error({ err, requestId: request.id }, 'phone lines: a purchase retry failed');
      return 'failed' as const;
    });
    if (outcome !== 'skipped') result[outcome]++;
  }
  return result;
}

/** A request for numbers for the user's primary assistant; one pending request per user. */
export async function requestPhoneLine(db: Db, actor: Actor, input: z.infer<typeof PhoneLineRequestBody>) {
  const user = actor.user!;
  if (!user.primaryAssistantId) throw badRequest('The user has no assistant yet: hire one first');
  const created = await db.transaction(async (tx) => {
    const [pending] = await tx.select().from(phoneLineRequests).where(and(eq(phoneLineRequests.userId, user.id), eq(phoneLineRequests.status, 'pending'))).for('update');
    if (pending) throw badRequest('The user already has a pending phone-line request', { request: toPublic(pending) });
    const [r] = await tx
      .insert(phoneLineRequests)
      .values({ accountId: actor.accountId, userId: user.id, assistantId: user.primaryAssistantId!, requestedChannels: input.requestedChannels, notes: input.notes })
      .returning();
    if (input.requestedChannels.voice) await setVoiceStatus(tx, r!.assistantId, 'provisioning', ['none', 'failed']);
    return r!;
  });
  return { ok: true as const, request: toPublic(await provisionIfConfigured(db, created, user.country)) };
}

export async function myPhoneLineRequest(db: Db, actor: Actor) {
  const [r] = await db.select().from(phoneLineRequests).where(eq(phoneLineRequests.userId, actor.user!.id)).orderBy(desc(phoneLineRequests.createdAt)).limit(1);
  return { ok: true as const, request: r ? toPublic(r) : null };
}
