import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { channelEvents, users } from '@/db/schema';
import type { InboundChannelMessage } from '@/server/channels/message';
import { Activity, CardInvoke, CardSubmit, isPersonal } from '@/server/channels/teams/activity';
import { ADAPTIVE_CARD, decidedCard } from '@/server/channels/teams/cards';
import { teamsBotConfig, type TeamsBotConfig } from '@/server/channels/teams/config';
import { updateActivity } from '@/server/channels/teams/connector';
import { rememberConversation } from '@/server/channels/teams/conversations';
import { teamsPerson, type TeamsPerson } from '@/server/channels/teams/directory';
import { carriesFiles, downloadTeamsFiles } from '@/server/channels/teams/file-download';
import { verifyConnectorToken } from '@/server/channels/teams/jwt';
import { teamsRef } from '@/server/channels/teams/refs';
import { startQueuedTurns, type QueuedChatTurn } from '@/server/chats/turn-queue';
import { AppError, notFound } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { routeAfterAnswer } from './after-answer';
import { decideByButton, type ButtonPress, type PressOutcome } from './button-approvals';
import { channelSender } from './channel-identities';
import { markCardDecided, outcomeText, ownerCart } from './channel-approvals';
import { ensureChannelWork } from './channel-work';
import { routeInbound } from './inbound';
import { emptyOk, parseJson, parseWith, rawBody } from './webhook-body';

/*
 * POST /api/teams/messages (spec 5): the Bot Framework messaging endpoint of the deployment's Teams
 * bot (the app an organization or team admin connects). Every request must carry the Bot
 * Connector's JWT (teams/jwt.ts: OpenID metadata keys, issuer, audience = TEAMS_CLIENT_ID,
 * serviceUrl claim = the activity's); otherwise 401 and nothing is stored. Without the bot's
 * credentials the endpoint is 404.
 * - A message in a 1:1 chat from a user linked through a connected tenant's directory is that
 *   user's message in their Teams chat (`platform: teams`) with their primary assistant; it is
 *   stored once by activity id, answered 200 at once, and routed after. Group chats and channels
 *   are not served (spec 1: Teams groups: no). Unlinked senders are kept nowhere: the bot works for
 *   no one in a tenant nobody connected.
 * - Its files (a file shared in the chat, an image pasted inline) are fetched when it is routed,
 *   after the answer (teams/file-download.ts), and stored as the user's files by routeInbound;
 *   a message with files and no words is routed too, and what could not be fetched is named in
 *   its text.
 * - An Adaptive Card press (invoke `adaptiveCard/action`, or an older client's Action.Submit) is a
 *   ButtonPress, decided before the answer; the invoke's answer is the updated card.
 */

export async function teamsMessages(db: Db, req: ApiRequest): Promise<Response> {
  const cfg = teamsBotConfig();
  if (!cfg) throw notFound('Teams bot');
  if (!req.headers.get('authorization')) throw new AppError(401, 'unauthorized', 'Authorization: the Bot Connector’s bearer token is required');
  const activity = parseWith(Activity, parseJson(await rawBody(req)));
  const check = await verifyConnectorToken(cfg, req.headers.get('authorization'), activity);
  if (!check.ok) {
    logger.warn({ reason: check.reason }, 'teams: refused an activity whose token did not verify');
    throw new AppError(401, 'unauthorized', 'Authorization: the Bot Connector token did not verify');
  }
  ensureChannelWork(db);
  if (!isPersonal(activity)) return emptyOk();
  const person = await teamsPerson(db, cfg, activity);
  if (person) await rememberConversation(db, person, activity);
  if (activity.type === 'invoke' && activity.name === 'adaptiveCard/action') return invokeAnswer(db, activity, person);
  if (activity.type !== 'message') return emptyOk();
  const submit = CardSubmit.safeParse(activity.value);
  if (submit.success) {
    const outcome = person ? await decideByButton(db, press(person, submit.data, activity)) : notLinked();
    setImmediate(() => void showOnCard(db, cfg, activity, outcome, submit.data));
    return emptyOk();
  }
  if (!person || !activity.id || (!activity.text?.trim() && !carriesFiles(activity))) return emptyOk();
  const [stored] = await db
    .insert(channelEvents)
    .values({ provider: 'teams', appKey: 'teams', externalId: activity.id, accountId: person.accountId, kind: 'message', payload: { activity, person } as Record<string, unknown> })
    .onConflictDoNothing()
    .returning({ id: channelEvents.id });
  if (stored) routeAfterAnswer(() => routeTeamsMessage(db, stored.id));
  return emptyOk();
}

const notLinked = (): PressOutcome => ({ ok: false, code: 'not_owner', message: 'Only the person this approval belongs to can decide on it, from their own linked account.' });

function press(person: TeamsPerson, data: { cartId: string; contentHash: string }, activity: Pick<Activity, 'from' | 'conversation' | 'replyToId'>, verb?: 'approve' | 'reject'): ButtonPress {
  return {
    provider: 'teams',
    verifiedBy: 'bot_connector_jwt',
    accountId: person.accountId,
    workspaceId: person.tenantId,
    externalUserId: (activity.from.aadObjectId ?? '').toLowerCase(),
    cartId: data.cartId,
    contentHash: data.contentHash,
    decision: verb ?? ((data as { stewardAction?: 'approve' | 'reject' }).stewardAction === 'reject' ? 'reject' : 'approve'),
    // The card pressed: the message it is in (replyToId), in this conversation; only the one posted there to the owner counts.
    shownIn: { provider: 'teams', conversationId: activity.conversation.id, activityId: activity.replyToId ?? null },
  };
}

async function invokeAnswer(db: Db, activity: Activity, person: TeamsPerson | null): Promise<Response> {
  const json = (value: unknown) => new Response(JSON.stringify(value), { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } });
  const parsed = CardInvoke.safeParse(activity.value);
  if (!parsed.success) return json({ statusCode: 400, type: 'application/vnd.microsoft.error', value: { code: 'BadRequest', message: 'Not a Steward approval card action' } });
  const data = parsed.data.action.data;
  const outcome = person ? await decideByButton(db, press(person, data, activity, parsed.data.action.verb)) : notLinked();
  const line = outcomeText(outcome);
  if (!outcome.ok && (outcome.code === 'not_owner' || outcome.code === 'owner_cannot_act' || outcome.code === 'queuing_failed')) {
    return json({ statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: line });
  }
  await markCardDecided(db, data.cartId, 'teams', data.contentHash, line);
  const cart = person ? await ownerCart(db, person.userId, data.cartId) : null;
  if (!cart) return json({ statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: line });
  return json({ statusCode: 200, type: ADAPTIVE_CARD, value: decidedCard(cart, line) });
}

/** Action.Submit (older clients): the card the press came from is updated in place. */
async function showOnCard(db: Db, cfg: TeamsBotConfig, activity: Activity, outcome: PressOutcome, data: { cartId: string; contentHash: string }): Promise<void> {
  try {
    const line = outcomeText(outcome);
    if (outcome.ok || (outcome.code !== 'not_owner' && outcome.code !== 'owner_cannot_act')) await markCardDecided(db, data.cartId, 'teams', data.contentHash, line);
    if (!activity.replyToId || !outcome.ok) return;
    const cart = await ownerCart(db, outcome.userId, data.cartId);
    if (cart) await updateActivity(cfg, activity.serviceUrl, activity.conversation.id, activity.replyToId, { type: 'message', attachments: [{ contentType: ADAPTIVE_CARD, content: decidedCard(cart, line) }] });
  } catch (err) {
    logger.warn({ err, cartId: data.cartId }, 'teams: the outcome could not be shown on the card');
  }
}

/** Routes one stored Teams message, once. */
export async function routeTeamsMessage(db: Db, eventRowId: string): Promise<void> {
  try {
    const [row] = await db.select().from(channelEvents).where(and(eq(channelEvents.id, eventRowId), eq(channelEvents.status, 'received')));
    if (!row) return;
    const stored = row.payload as { activity: unknown; person: TeamsPerson };
    const activity = Activity.parse(stored.activity);
    const person = stored.person;
    const [user] = await db.select({ primaryAssistantId: users.primaryAssistantId }).from(users).where(eq(users.id, person.userId));
    const finish = (reason: string) => db.update(channelEvents).set({ status: 'ignored', reason, handledAt: sql`now()` }).where(eq(channelEvents.id, row.id));
    if (!user?.primaryAssistantId) return void (await finish('the user has no assistant'));
    // Fetched before the transaction, so no connection waits on them; should the sweep route this message meanwhile, only the router that takes its lock stores them.
    const { attachments, problems } = await downloadTeamsFiles(teamsBotConfig(), activity);
    const { sender } = await channelSender(db, person.accountId, { provider: 'teams', workspaceId: person.tenantId, externalUserId: person.aadObjectId, name: activity.from.name ?? null });
    const turns: QueuedChatTurn[] = [];
    await db.transaction(async (tx) => {
      const [locked] = await tx.select().from(channelEvents).where(and(eq(channelEvents.id, row.id), eq(channelEvents.status, 'received'))).for('update', { skipLocked: true });
      if (!locked) return;
      const msg: InboundChannelMessage = {
        channel: 'teams',
        platform: 'teams',
        accountId: person.accountId,
        assistantId: user.primaryAssistantId!,
        sender,
        // Linked through a connected tenant's directory (teams/directory.ts), behind a verified Connector token.
        person: { provider: 'teams', workspaceId: person.tenantId, userId: person.aadObjectId },
        to: [],
        cc: [],
        providerMessageId: teamsRef({ conversationId: activity.conversation.id, activityId: activity.id! }),
        threadRefs: [],
        // A 1:1 chat with the bot is one conversation.
        threadKey: activity.conversation.id,
        subject: null,
        text: [activity.text ?? '', ...(problems.length ? [`(files not received: ${problems.join('; ')})`] : [])].filter(Boolean).join('\n'),
        attachments,
        automated: false,
        storedId: row.id,
      };
      const routed = await routeInbound(tx, msg);
      turns.push(...routed.turns);
      await tx.update(channelEvents).set({ status: 'routed', reason: `${routed.status}${routed.reason ? `: ${routed.reason}` : ''}`, handledAt: sql`now()` }).where(eq(channelEvents.id, row.id));
    });
    await startQueuedTurns(db, turns);
  } catch (err) {
    logger.error({ err, eventRowId }, 'teams: routing failed; it will be tried again');
  }
}

