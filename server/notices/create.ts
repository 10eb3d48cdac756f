import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { notices, users, type NoticeKind, type NoticeRow } from '@/db/schema';
import { portSender } from '@/server/channels/adapters';
import { NOTICE_CHANNELS } from '@/server/user-record/contracts';
import { defaultPreferences, deepMerge } from '@/server/user-record/defaults';
import { nextWorkingTime, type WorkingHours } from './quiet-hours';
import { noticeChannelFor } from './text-platform';

/*
 * Notices that find the user (issue: the channel layer): what needs them — an approval waiting, a
 * time-boxed action about to run, a question from ask_user, a handoff, a task that failed or ran out
 * of credits — is recorded here, in the transaction of the event, once per occasion (`dedupeKey`),
 * on the user's preferred channel (email unless they chose another that can reach them), due now or,
 * for a non-urgent notice under quiet hours, at the start of their next working hours. The engine
 * sends it once the transaction has committed (deliver.ts); a lost handover is found by the sweep.
 */

export type NewNotice = {
  accountId: string;
  userId: string;
  kind: NoticeKind;
  dedupeKey: string;
  taskId?: string | null;
  cartId?: string | null;
  handoffId?: string | null;
  /** Goes out at once whatever the hour (a review window about to close). */
  urgent?: boolean;
  subject: string;
  text: string;
  /** Where the one-time link leads in the hosted app. */
  linkPath: string;
};

type Handover = (notice: { noticeId: string; accountId: string; transactionId: string }) => void;
let handover: Handover | null = null;

/** The entry floor registers how a recorded notice reaches the engine (server/compose/engine-wakeups.ts). */
export function registerNoticeHandover(fn: Handover | null): void {
  handover = fn;
}

/**
 * Whether a notice can go out on a channel: email always; another notice channel when the channel
 * port sends on it and its provider is configured when the notice is made (asked then, not when
 * the process started). The others fall back to email.
 */
function reachable(channel: string): boolean {
  if (channel === 'email') return true;
  const sender = (NOTICE_CHANNELS as readonly string[]).includes(channel) ? portSender(channel) : null;
  return sender !== null && (sender.configured?.() ?? true);
}

export async function createNotice(tx: Tx, input: NewNotice, now = new Date()): Promise<NoticeRow | null> {
  const [user] = await tx
    .select({ preferences: users.preferences, preferredContactChannel: users.preferredContactChannel, timezone: users.timezone, scheduling: users.schedulingPreferences, status: users.status })
    .from(users)
    .where(eq(users.id, input.userId));
  if (!user || user.status !== 'active') return null;
  const all = deepMerge(defaultPreferences(), user.preferences);
  const prefs = all.notifications;
  // `preferredContactChannel.channel` (spec 1) decides when the notification preference names none of its own.
  const stated = (user.preferences as { notifications?: { channel?: unknown } } | null)?.notifications?.channel;
  const contact = (user.preferredContactChannel as { channel?: unknown } | null)?.channel;
  if (stated === undefined && typeof contact === 'string' && (NOTICE_CHANNELS as readonly string[]).includes(contact)) prefs.channel = contact as typeof prefs.channel;
  // By text, on the platform the user chose for their number (text-platform.ts).
  let channel = reachable(prefs.channel) ? await noticeChannelFor(tx, input.userId, prefs.channel, reachable) : 'email';
  // `preferences.<email|slack|teams>.enabled` (spec 1): a channel the person turned off gets no
  // notice; it falls back to email, and with email off too the notice is kept for the app only.
  const off = (c: string) => (c === 'email' || c === 'slack' || c === 'teams') && all[c].enabled === false;
  if (off(channel)) channel = 'email';
  const silenced = off(channel);
  const hours = ((user.scheduling as { availability?: { workingHours?: WorkingHours } } | null)?.availability?.workingHours ?? {}) as WorkingHours;
  const dueAt = input.urgent || !prefs.quietHours ? now : nextWorkingTime(hours, user.timezone, now);
  const [row] = await tx
    .insert(notices)
    .values({
      accountId: input.accountId,
      userId: input.userId,
      kind: input.kind,
      dedupeKey: input.dedupeKey,
      taskId: input.taskId ?? null,
      cartId: input.cartId ?? null,
      handoffId: input.handoffId ?? null,
      urgent: input.urgent === true,
      channel,
      dueAt,
      subject: input.subject.replace(/[\r\n]+/g, ' ').slice(0, 200),
      text: input.text,
      linkPath: input.linkPath,
      ...(silenced ? { status: 'skipped' as const, error: 'the person turned off notices by email, Slack and Teams (preferences.<channel>.enabled): shown in the app only' } : {}),
    })
    .onConflictDoNothing()
    .returning();
  if (!row) return null;
  if (handover && !silenced) {
    const { rows } = await tx.execute<{ xid: string }>(sql`SELECT pg_current_xact_id()::text AS xid`);
    try {
      handover({ noticeId: row.id, accountId: row.accountId, transactionId: rows[0]!.xid });
    } catch {
      // The sweep sends it: a notice must never fail the change it reports.
    }
  }
  return row;
}

/** A one-time link's token (only its hash is kept) and how long it works. */
export const NOTICE_LINK_TTL_MS = 7 * 24 * 3_600_000;
export const newLinkToken = () => randomBytes(24).toString('base64url');
