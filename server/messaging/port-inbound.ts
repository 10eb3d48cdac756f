import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { channelApprovalPosts, channelEvents, type ChannelIdentityRow } from '@/db/schema';
import { linkScope, type ChannelAdapter, type Connection, type InboundEvent, type WebhookRequest } from '@/server/channels/adapter';
import { portAdapter } from '@/server/channels/adapters';
import type { InboundChannelMessage } from '@/server/channels/message';
import { sendThroughPort } from '@/server/channels/port-send';
import { startQueuedTurns, type QueuedChatTurn } from '@/server/chats/turn-queue';
import { AppError, notFound } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { routeAfterAnswer } from './after-answer';
import { decideByButton } from './button-approvals';
import { fetchInboundFiles } from './inbound-files';
import { channelSender } from './channel-identities';
import { markCardDecided, outcomeText, wordsOfCard } from './channel-approvals';
import { routeInbound } from './inbound';
import { watchTurnProgress } from './turn-progress';
import { emptyOk, rawBody } from './webhook-body';

/*
 * POST /api/channels/{channel}/webhooks/{key}: the one webhook of every adapter behind the channel
 * port (server/channels/adapter.ts), and what follows it, the same for each:
 * - the adapter finds the connection the key names (404 otherwise) and verifies the request
 *   (its provider's signature or secret): refused, nothing is stored;
 * - a message is kept once by the provider's id (a redelivery is acknowledged and not acted on
 *   again), answered at once, and routed after: a link code from the person in their 1:1 thread
 *   links them to the assistant's owner; otherwise it goes to routeInbound like a message of any
 *   channel (the owner's chat and a turn; someone a task waits on → that task; anyone else kept for
 *   the owner, untrusted, never answered from here);
 * - a button press is decided at once by button-approvals.ts (the presser's linked identity, the
 *   card posted for that version where it was posted, the hash), acknowledged, and the card closed.
 */

const toProvider = (channel: string) => channel as ChannelIdentityRow['provider'];

export async function portWebhook(db: Db, req: ApiRequest, channel: string, key: string, at: 'generic' | { fixed: string } = 'generic'): Promise<Response> {
  const adapter = portAdapter(channel);
  // An adapter whose webhooks the spec places elsewhere (Teams, Slack) is served only there.
  const fixed = at === 'generic' ? null : (adapter?.fixedWebhooks?.find((h) => h.name === at.fixed) ?? null);
  if (!adapter || (at === 'generic' ? Boolean(adapter.fixedWebhooks?.length) : !fixed)) throw notFound('Channel');
  const webhookConnection = await adapter.connection(db, key);
  if (!webhookConnection) throw notFound('Channel connection');
  const hook: WebhookRequest = { headers: req.headers, rawBody: Buffer.from(await rawBody(req)), connection: webhookConnection, ...(fixed ? { webhook: fixed.name } : {}) };
  const verified = await adapter.verifyWebhook(db, hook);
  if (!verified.ok) {
    logger.warn({ channel, connectionId: webhookConnection.id, reason: verified.reason }, 'channel port: refused an unverified webhook');
    throw verified.status === 404 ? notFound('Channel connection') : new AppError(verified.status, 'invalid_signature', verified.reason);
  }
  const event = await adapter.parseWebhook(db, hook);
  if (event.kind === 'ignored') {
    if (event.afterAnswer) routeAfterAnswer(event.afterAnswer);
    return event.answer === undefined ? emptyOk() : answerOk(event.answer);
  }
  // Behind a deployment-wide bot the event says whose it is (the proven person's assistant).
  const connection = event.connection ?? webhookConnection;
  const payload = event.stored ?? (JSON.parse(hook.rawBody.toString('utf8')) as Record<string, unknown>);
  const [stored] = await db
    .insert(channelEvents)
    .values({ provider: toProvider(channel), appKey: connection.id, externalId: event.externalId, accountId: connection.accountId, kind: event.kind, payload })
    .onConflictDoNothing()
    .returning({ id: channelEvents.id });
  if (!stored) {
    logger.info({ channel, connectionId: connection.id, externalId: event.externalId }, 'channel port: a redelivered update was acknowledged, not acted on');
    // A provider that shows a press's answer (a Teams invoke) sent it again because the first answer was lost: it gets the card's state again.
    if (event.kind === 'press' && event.answer) return jsonOk(await answerAgain(db, adapter, connection, event));
    return emptyOk();
  }
  if (event.kind === 'press') return decidePress(db, adapter, connection, event, stored.id);
  // After the answer: the provider waits for none of the routing, and a turn's start needs the commit anyway.
  routeAfterAnswer(() => routePortMessage(db, adapter, connection, stored.id, event));
  return emptyOk();
}

const jsonOk = (value: unknown) => new Response(JSON.stringify(value), { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } });

/** A webhook's answer: a string as text (Slack's url_verification challenge), anything else as JSON (a Teams invoke's). */
const answerOk = (value: unknown) =>
  typeof value === 'string' ? new Response(value, { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } }) : jsonOk(value);

const finish = (db: Db, id: string, status: 'routed' | 'ignored', reason: string) =>
  db.update(channelEvents).set({ status, reason: reason.slice(0, 500), handledAt: sql`now()` }).where(eq(channelEvents.id, id));

async function routePortMessage(db: Db, adapter: ChannelAdapter, connection: Connection, eventRowId: string, event: Extract<InboundEvent, { kind: 'message' }>): Promise<void> {
  try {
    const direct = event.audience.kind === 'direct';
    if (event.linkCode && direct && adapter.redeemLink) {
      // Claimed before the code is spent: a routing the channel sweep starts again for a message
      // still `received` (this one slow) finds it taken, so the person is answered once, not
      // "Linked" and then "not valid" for the same code.
      const [claimed] = await db
        .update(channelEvents)
        .set({ status: 'routed', reason: 'linking', handledAt: sql`now()` })
        .where(and(eq(channelEvents.id, eventRowId), eq(channelEvents.status, 'received')))
        .returning({ id: channelEvents.id });
      if (!claimed) return;
      const owner = await adapter.redeemLink(db, connection, event.linkCode, event.person);
      await finish(db, eventRowId, 'routed', owner ? 'linked' : 'link_refused');
      const text = owner ? `Linked: this ${adapter.label} account now speaks for you to your assistant.` : 'That link is not valid any more (it works once, for a day). Ask for a new one in Steward.';
      return void (await sendThroughPort(db, { channel: adapter.channel, assistantId: connection.assistantId, kind: 'notice', thread: event.thread, text }));
    }
    const { sender } = await channelSender(db, connection.accountId, {
      provider: toProvider(adapter.channel),
      workspaceId: event.person.workspaceId,
      externalUserId: event.person.userId,
      name: event.person.name,
      appId: linkScope(connection),
    });
    // Someone Steward does not know, whom the provider did not name: their name, asked of the provider, shown beside their words.
    if (!sender.proven && !sender.name && adapter.nameOf) sender.name = await adapter.nameOf(db, connection, event.person).catch(() => null);
    const { attachments, problems } = await fetchInboundFiles(event.files);
    const msg: InboundChannelMessage = {
      channel: adapter.channel,
      platform: adapter.channel as InboundChannelMessage['platform'],
      accountId: connection.accountId,
      assistantId: connection.assistantId,
      sender,
      person: event.person.proven ? { provider: toProvider(adapter.channel), workspaceId: event.person.workspaceId, userId: event.person.userId } : null,
      to: [],
      cc: [],
      providerMessageId: event.messageRef,
      threadRefs: [],
      // A 1:1 thread is one conversation; a group is the owner's group chat (strangers.ts keeps other members' words there).
      threadKey: event.conversationKey ?? (direct ? event.thread : `group:${event.thread}`),
      subject: null,
      text: [event.text, ...(problems.length ? [`(files not received: ${problems.join('; ')})`] : [])].filter(Boolean).join('\n'),
      attachments,
      automated: false,
      storedId: eventRowId,
    };
    const turns: QueuedChatTurn[] = [];
    await db.transaction(async (tx) => {
      const [locked] = await tx.select().from(channelEvents).where(and(eq(channelEvents.id, eventRowId), eq(channelEvents.status, 'received'))).for('update', { skipLocked: true });
      if (!locked) return;
      // A stranger conversation answers by send_message; from a port channel none is opened: the owner decides.
      const routed = await routeInbound(tx, msg, { inTaskThread: !sender.proven });
      turns.push(...routed.turns);
      await tx.update(channelEvents).set({ status: 'routed', reason: `${routed.status}${routed.reason ? `: ${routed.reason}` : ''}`, handledAt: sql`now()` }).where(eq(channelEvents.id, eventRowId));
    });
    await startQueuedTurns(db, turns);
    if (direct) for (const t of turns) watchTurnProgress(db, adapter, connection, t.turn.id, { thread: event.thread, replyTo: event.messageRef });
  } catch (err) {
    logger.error({ err, eventRowId, channel: adapter.channel }, 'channel port: routing failed; the update stays received');
  }
}

/** A press of an approval button: its binding names the card Steward posted (channel_approval_posts), which names the cart version. */
async function decidePress(db: Db, adapter: ChannelAdapter, connection: Connection, event: Extract<InboundEvent, { kind: 'press' }>, eventRowId: string): Promise<Response> {
  const [post] = await db
    .select()
    .from(channelApprovalPosts)
    .where(and(eq(channelApprovalPosts.id, event.binding), eq(channelApprovalPosts.accountId, connection.accountId), eq(channelApprovalPosts.provider, toProvider(adapter.channel))));
  const outcome = post
    ? await decideByButton(db, {
        provider: toProvider(adapter.channel),
        verifiedBy: 'port_webhook',
        accountId: connection.accountId,
        workspaceId: event.person.workspaceId,
        externalUserId: event.person.userId,
        cartId: post.cartId,
        contentHash: post.contentHash,
        decision: event.decision,
        shownIn: { provider: adapter.channel, connectionId: connection.id, thread: event.shownIn.thread, messageRef: event.shownIn.messageRef, linkedThrough: linkScope(connection) ?? null },
      })
    : ({ ok: false, code: 'not_owner', message: 'This button is not on an approval Steward posted: nothing was decided.' } as const);
  const line = outcomeText(outcome);
  const record = () => finish(db, eventRowId, 'routed', outcome.ok ? `press: ${outcome.decision}` : `press refused: ${outcome.code}`);
  const closes = Boolean(post) && (outcome.ok || (outcome.code !== 'not_owner' && outcome.code !== 'owner_cannot_act' && outcome.code !== 'queuing_failed'));
  // Before the answer, so the sweep never closes this card as decided elsewhere.
  if (closes) await markCardDecided(db, post!.cartId, toProvider(adapter.channel), post!.contentHash, line);
  // The card keeps what it showed of this version once decided (none when an edit made a newer one).
  const words = () => (closes ? wordsOfCard(db, post!).catch(() => null) : Promise.resolve(null));
  // The provider waits for the answer and shows it in place of the card (a Teams invoke).
  if (event.answer) {
    await record();
    return jsonOk(event.answer(line, closes, await words()));
  }
  // The decision is made and committed; recording the press, telling the presser and closing the
  // card follow the answer (Slack wants one within 3 seconds). A press left `received` by a process
  // that stopped first is not decided again (reroutePortEvent).
  routeAfterAnswer(async () => {
    await record();
    await event.acknowledge(line).catch((err: unknown) => logger.warn({ err }, 'channel port: the press could not be acknowledged'));
    if (closes && adapter.closeButtons) await adapter.closeButtons(db, connection, event.shownIn, line, await words()).catch((err: unknown) => logger.warn({ err }, 'channel port: the card could not be closed'));
  });
  return emptyOk();
}

/** The answer to a press delivered again: the card as its first press left it (decided: its outcome), or that nothing more was decided. */
async function answerAgain(db: Db, adapter: ChannelAdapter, connection: Connection, event: Extract<InboundEvent, { kind: 'press' }>): Promise<unknown> {
  const [post] = await db
    .select()
    .from(channelApprovalPosts)
    .where(and(eq(channelApprovalPosts.id, event.binding), eq(channelApprovalPosts.accountId, connection.accountId), eq(channelApprovalPosts.provider, toProvider(adapter.channel))));
  if (post?.state === 'closed' && post.outcome) return event.answer!(post.outcome, true, await wordsOfCard(db, post).catch(() => null));
  return event.answer!('This press was received already: nothing more was decided.', false);
}

/**
 * An update stored and left `received` (the process stopped before routing it), routed by the
 * channel sweep from its stored payload. A press is not decided late: the presser was already
 * answered (or not) and may press again.
 */
export async function reroutePortEvent(db: Db, row: { id: string; provider: string; appKey: string; payload: Record<string, unknown> }): Promise<void> {
  const adapter = portAdapter(row.provider);
  const connection = adapter ? await adapter.connection(db, row.appKey) : null;
  if (!adapter || !connection) return void (await finish(db, row.id, 'ignored', 'the connection is gone'));
  // A stored message came through the adapter's first webhook (Slack's events; a press is never routed late).
  const first = adapter.fixedWebhooks?.[0]?.name;
  const event = await adapter.parseWebhook(db, { headers: new Headers(), rawBody: Buffer.from(JSON.stringify(row.payload)), connection, replay: true, ...(first ? { webhook: first } : {}) }).catch(() => null);
  if (event?.kind !== 'message') return void (await finish(db, row.id, 'ignored', event?.kind === 'press' ? 'a press not decided before the process stopped' : 'not a message'));
  await routePortMessage(db, adapter, event.connection ?? connection, row.id, event);
}
