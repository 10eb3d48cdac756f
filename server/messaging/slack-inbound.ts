import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, channelEvents, type ChannelEventRow } from '@/db/schema';
import type { InboundChannelMessage } from '@/server/channels/message';
import { EventCallback, SlackEnvelope, SlackMessageEvent } from '@/server/channels/slack/contracts';
import { slackAppById } from '@/server/channels/slack/credentials';
import { downloadSlackFiles } from '@/server/channels/slack/file-download';
import { forgetSlackInstallation, slackBot } from '@/server/channels/slack/installations';
import { slackRef } from '@/server/channels/slack/refs';
import { usersInfo } from '@/server/channels/slack/web-api';
import { startQueuedTurns, type QueuedChatTurn } from '@/server/chats/turn-queue';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { channelSender } from './channel-identities';
import { verifiedSlackRequest } from './slack-request';
import { ensureChannelWork } from './channel-work';
import { routeAfterAnswer } from './after-answer';
import { routeInbound } from './inbound';
import { watchSlackProgress } from './slack-progress';
import { emptyOk, parseJson, parseWith } from './webhook-body';

/*
 * POST /api/slack/events/{appId} (spec 5): the Events API of one assistant's Slack app.
 * - Verified first: signature v0 with the app's own signing secret (the marketplace app: the
 *   deployment's), within five minutes; otherwise 401 and nothing is stored. An app without
 *   credentials is off: 404.
 * - `url_verification` is answered with its challenge.
 * - An event is stored once by its event_id (Slack retries, with X-Slack-Retry-Num, when it saw no
 *   answer within 3 seconds): a retry finds it stored and is acknowledged without acting again.
 *   The answer goes out as soon as the event is stored; routing happens after it.
 * - Routing (the channel layer decides, not this adapter): a DM (message.im) from the Slack identity
 *   linked to the assistant's owner is the owner's message in their Slack chat for that DM (a turn
 *   answers in the thread); a mention in a channel by the owner is the owner's work in a chat for
 *   that channel thread, answered in the owner's DM. Anyone else — an unlinked identity, another user — is kept as contact
 *   content where the owner sees it (untrusted) and is not answered from Slack.
 * - Files (issue 41): a message's files are downloaded with the bot token from Slack's file host
 *   only, after the answer (channels/slack/file-download.ts), and passed as its attachments; what
 *   could not be fetched is named in its text. A message of files alone is routed like any other.
 */

export async function slackEvents(db: Db, req: ApiRequest, appId: string): Promise<Response> {
  const { app, raw } = await verifiedSlackRequest(db, req, appId, 'events');
  const envelope = parseWith(SlackEnvelope, parseJson(raw));
  if (envelope.type === 'url_verification') {
    return new Response(envelope.challenge, { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } });
  }
  // Slack's legacy verification token rides along in every envelope: it is a credential, never stored.
  const { token: _verificationToken, ...kept } = envelope as Record<string, unknown>;
  const [stored] = await db
    .insert(channelEvents)
    .values({ provider: 'slack', appKey: app.id, externalId: envelope.event_id, accountId: app.accountId, kind: envelope.event.type, payload: kept })
    .onConflictDoNothing()
    .returning({ id: channelEvents.id });
  ensureChannelWork(db);
  if (!stored) {
    logger.info({ appId, eventId: envelope.event_id, retry: req.headers.get('x-slack-retry-num') }, 'slack events: a retried event was acknowledged again, not acted on');
    return emptyOk();
  }
  // After the answer: Slack wants one within 3 seconds, and a turn's start needs the commit anyway.
  routeAfterAnswer(() => routeSlackEvent(db, stored.id));
  return emptyOk();
}

type Decision = { status: 'ignored'; reason: string } | { status: 'message'; event: SlackMessageEvent; kind: 'dm' | 'mention' };

function decide(envelope: EventCallback, botUserId: string | null): Decision {
  const type = envelope.event.type;
  if (type !== 'message' && type !== 'app_mention') return { status: 'ignored', reason: `event ${type} is not routed` };
  const parsed = SlackMessageEvent.safeParse(envelope.event);
  if (!parsed.success) return { status: 'ignored', reason: 'not a message this layer reads' };
  const e = parsed.data;
  // Edits, deletions, joins and every bot's messages (the assistant's own replies first) are not
  // people writing; a message with files (`file_share`, its text possibly empty) is.
  if ((e.subtype && e.subtype !== 'file_share') || e.bot_id || !e.user || (botUserId && e.user === botUserId)) return { status: 'ignored', reason: 'not a person’s new message' };
  if (type === 'message' && e.channel_type === 'im') return { status: 'message', event: e, kind: 'dm' };
  if (type === 'app_mention') return { status: 'message', event: e, kind: 'mention' };
  // Channel messages that do not mention the assistant are not for it (mentions come as app_mention).
  return { status: 'ignored', reason: 'a channel message without a mention' };
}

const finish = (db: Db, id: string, status: ChannelEventRow['status'], reason: string | null) =>
  db.update(channelEvents).set({ status, reason, handledAt: sql`now()` }).where(and(eq(channelEvents.id, id), eq(channelEvents.status, 'received')));

/** Routes one stored event, once (a concurrent or later attempt finds it no longer `received`). */
export async function routeSlackEvent(db: Db, eventRowId: string): Promise<void> {
  try {
    const [row] = await db.select().from(channelEvents).where(and(eq(channelEvents.id, eventRowId), eq(channelEvents.status, 'received')));
    if (!row) return;
    const app = await slackAppById(db, row.appKey);
    const envelope = EventCallback.safeParse(row.payload);
    if (!app || !envelope.success) return void (await finish(db, row.id, 'ignored', 'the app or the payload is gone'));
    const teamId = envelope.data.team_id;
    if (envelope.data.event.type === 'app_uninstalled' || envelope.data.event.type === 'tokens_revoked') {
      await forgetSlackInstallation(db, app.id, teamId);
      return void (await finish(db, row.id, 'routed', 'the app was uninstalled from the workspace'));
    }
    const bot = await slackBot(db, app.id, teamId);
    const decision = decide(envelope.data, bot?.botUserId ?? null);
    if (decision.status === 'ignored') return void (await finish(db, row.id, 'ignored', decision.reason));
    const e = decision.event;
    const [assistant] = await db.select({ userId: assistants.userId }).from(assistants).where(eq(assistants.id, app.assistantId));
    // A DM is answered under the message (or in the thread it was written in). A mention in a
    // channel is answered in the owner's DM: everyone in the channel would read an answer there, and
    // an answer to the owner may carry what only the owner may see (anything meant for others is a
    // staged dispatch, never a chat reply).
    const threadTs = e.thread_ts ?? e.ts;
    const answerIn = decision.kind === 'dm' ? { channel: e.channel, threadTs } : { channel: e.user!, threadTs: null };
    const { sender, userId } = await channelSender(db, app.accountId, { provider: 'slack', workspaceId: teamId, externalUserId: e.user!, appId: app.id });
    if (!sender.proven && bot) sender.name = await nameOf(bot.token, e.user!);
    // The message's files, fetched here: after Slack had its answer, before the transaction that
    // stores them as files (a re-route of the stored event fetches them again; only one stores).
    const { attachments, problems } = e.files?.length ? await downloadSlackFiles(bot?.token ?? null, e.files) : { attachments: [], problems: [] };
    if (problems.length) logger.info({ eventRowId, problems }, 'slack events: some files of a message were not received');
    const turns: QueuedChatTurn[] = [];
    await db.transaction(async (tx) => {
      // Locked, skipping a row another attempt holds: that attempt routes it.
      const [locked] = await tx.select().from(channelEvents).where(and(eq(channelEvents.id, row.id), eq(channelEvents.status, 'received'))).for('update', { skipLocked: true });
      if (!locked) return;
      const msg: InboundChannelMessage = {
        channel: 'slack',
        platform: 'slack',
        accountId: app.accountId,
        assistantId: app.assistantId,
        sender,
        person: workspaceMember(e, teamId, bot) ? { provider: 'slack', workspaceId: teamId, userId: e.user! } : null,
        to: [],
        cc: [],
        providerMessageId: slackRef({ appId: app.id, teamId, ...answerIn, ts: e.ts, mentionedIn: decision.kind === 'mention' ? e.channel : null }),
        threadRefs: [],
        // A DM is one conversation; in a channel, each thread the assistant is mentioned in is one.
        threadKey: decision.kind === 'dm' ? e.channel : `${e.channel}:${threadTs}`,
        subject: null,
        text: [e.text, ...(problems.length ? [`(files not received: ${problems.map((p) => `${p.name}: ${p.problem}`).join('; ')})`] : [])].filter(Boolean).join('\n'),
        attachments,
        automated: false,
        storedId: row.id,
      };
      // Only the owner's words are the owner's; anyone else's are kept as contact content, and a
      // stranger conversation (which answers by email) has no way back into Slack: none is opened.
      const fromOwner = userId !== null && userId === assistant?.userId;
      const routed = await routeInbound(tx, msg, { inTaskThread: !fromOwner });
      turns.push(...routed.turns);
      await tx.update(channelEvents).set({ status: 'routed', reason: `${routed.status}${routed.reason ? `: ${routed.reason}` : ''}`, handledAt: sql`now()` }).where(eq(channelEvents.id, row.id));
    });
    await startQueuedTurns(db, turns);
    for (const t of turns) watchSlackProgress(db, t.turn.id, { appId: app.id, teamId, ...answerIn });
  } catch (err) {
    // Left `received`: the sweep (channel-work.ts) tries again.
    logger.error({ err, eventRowId }, 'slack events: routing failed; it will be tried again');
  }
}

/**
 * Whether Slack vouches for the writer as a member of a workspace the assistant's app is installed
 * in: the event is signed with the app's secret, the app has a bot in that workspace, and the
 * writer's own team is that workspace (a Slack Connect guest from another organization is not).
 */
function workspaceMember(e: SlackMessageEvent, teamId: string, bot: unknown): boolean {
  const userTeam = (e as { user_team?: unknown }).user_team ?? e.team;
  return Boolean(bot && e.user && (userTeam === undefined || userTeam === teamId));
}

/** A stranger's display name, best effort (users.info): shown to the owner beside their words. */
async function nameOf(token: string, user: string): Promise<string | null> {
  const u = await usersInfo(token, user).catch(() => null);
  return u?.profile?.display_name || u?.real_name || u?.name || null;
}

