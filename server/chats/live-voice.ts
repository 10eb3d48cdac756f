import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, assistants, chats, users, type AccountRow, type AssistantRow, type ChatRow, type UserRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { realtimeConfig } from '@/server/channels/realtime/config';
import { siteOrigin } from '@/server/hosted/origin';
import { portalToken } from '@/server/sign-in/portal-actor';
import { findChatForActor } from './access';
import { liveVoiceToken, readLiveVoiceToken, spendLiveVoiceToken } from './live-voice-token';
import { spentBudgetOf } from '@/server/budgets/room';
import { liveBudgetMessage } from './live-voice-usage';

/*
 * Live voice on the chat page (issue 48): the person talks with their assistant in both
 * directions at once over a WebSocket of the kernel, bridged to the realtime speech model with
 * the session code of phone calls (server/channels/realtime/conversation.ts). The page asks the
 * `voice.live` procedure for a token for its chat (the person's own chat only: another's is 404),
 * and opens /api/chats/{chatId}/voice/live?token=… on its own origin. Without a realtime model
 * configured the procedure says so and the page keeps hold to talk (issue 35).
 *
 * Admission of the upgrade (admitLiveVoice), before anything is opened: the token verifies for
 * this chat (401 otherwise); the chat is still the token's person's (404); the upgrade's Origin is
 * the account's hosted origin (403: a page elsewhere cannot talk through the person's session,
 * cross-site WebSocket hijacking); the person is still active (403); a browser signed in to the
 * hosted app as someone else is refused (403); no budget covering the person is spent (402, and
 * the page is told so when it asks for the token); and the token is spent (401 the second time).
 */

export const LIVE_VOICE_PATH = /^\/api\/chats\/([A-Za-z0-9_-]{1,100})\/voice\/live$/;
export const liveVoicePath = (chatId: string) => `/api/chats/${encodeURIComponent(chatId)}/voice/live`;

/** The audio the socket takes and gives: 16-bit PCM, mono, little-endian, at this rate (OpenAI's `audio/pcm`). */
export const LIVE_SAMPLE_RATE = 24_000;

const NOT_CONFIGURED = 'Live voice needs a realtime speech model, and this deployment has none (STEWARD_REALTIME_URL and STEWARD_REALTIME_MODEL): hold to talk instead.';

export type LiveVoiceOffer =
  | { available: false; reason: string }
  | { available: true; path: string; token: string; expiresAt: string; sampleRate: number };

/** Whether live voice can be offered on this deployment (the page shows its Talk button only then). */
export function liveVoiceAvailability(): { available: boolean; reason: string | null } {
  return realtimeConfig() ? { available: true, reason: null } : { available: false, reason: NOT_CONFIGURED };
}

/** A token for the person's own chat's live voice socket (another's chat: 404), or why there is none. */
export async function offerLiveVoice(db: Db, actor: Actor, input: { chatId: string }, now = new Date()): Promise<LiveVoiceOffer> {
  const user = requireUser(actor);
  const chat = await findChatForActor(db, actor, input.chatId);
  if (!realtimeConfig()) return { available: false, reason: NOT_CONFIGURED };
  const spent = await spentBudgetOf(db, chat.accountId, chat.userId, now);
  if (spent) return { available: false, reason: liveBudgetMessage(spent) };
  const { token, expiresAt } = await liveVoiceToken(db, { accountId: chat.accountId, userId: user.id, chatId: chat.id }, now);
  return { available: true, path: liveVoicePath(chat.id), token, expiresAt: expiresAt.toISOString(), sampleRate: LIVE_SAMPLE_RATE };
}

export type LiveVoiceAdmission =
  | { ok: true; chat: ChatRow; assistant: AssistantRow; owner: UserRow; account: AccountRow }
  | { ok: false; status: 401 | 402 | 403 | 404; reason: string };

/** Whether an upgrade's Origin allows it for a page served on `site`: absent (not a browser: the token decides), or exactly that origin. */
const originAllowed = (origin: string | null, site: string) => origin === null || origin === site;

export async function admitLiveVoice(db: Db, chatId: string, token: string, headers: Pick<Headers, 'get'>, now = new Date()): Promise<LiveVoiceAdmission> {
  const claims = await readLiveVoiceToken(db, token, chatId, now);
  if (!claims) return { ok: false, status: 401, reason: 'a live voice token for this chat is required' };
  const [row] = await db
    .select({ chat: chats, account: accounts, owner: users, assistant: assistants })
    .from(chats)
    .innerJoin(accounts, eq(accounts.id, chats.accountId))
    .innerJoin(users, eq(users.id, chats.userId))
    .innerJoin(assistants, eq(assistants.id, chats.assistantId))
    .where(and(eq(chats.id, chatId), eq(chats.accountId, claims.accountId), eq(chats.userId, claims.userId)));
  if (!row) return { ok: false, status: 404, reason: 'chat not found' };
  const site = siteOrigin(row.account.hostedDomain);
  if (!originAllowed(headers.get('origin'), site.origin)) return { ok: false, status: 403, reason: 'live voice opens only from the chat page' };
  if (row.owner.status !== 'active') return { ok: false, status: 403, reason: 'the user is not active' };
  const signedIn = await portalToken(db, row.account, headers, site.secure);
  if (signedIn && signedIn.sub !== claims.userId) return { ok: false, status: 403, reason: 'this token was issued to another user' };
  // The model is not opened for someone whose budget is spent (the token stays good for a top-up).
  const spent = await spentBudgetOf(db, row.chat.accountId, row.chat.userId, now);
  if (spent) return { ok: false, status: 402, reason: liveBudgetMessage(spent) };
  if (!spendLiveVoiceToken(claims, now)) return { ok: false, status: 401, reason: 'this live voice token was already used' };
  return { ok: true, chat: row.chat, assistant: row.assistant, owner: row.owner, account: row.account };
}
