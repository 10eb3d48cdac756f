import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { channelApprovalPosts } from '@/db/schema';
import { invalidFields } from '@/server/http/errors';
import type { InboundEvent, Verified, WebhookRequest } from '../adapter';
import { parseWebhookJson } from '../webhook-json';
import { BlockActions, EventCallback, SlackEnvelope, SlackMessageEvent } from './contracts';
import { slackWebhookApp } from './credentials';
import { slackInboundFiles } from './file-download';
import { forgetSlackInstallation, installedBot, slackBot } from './installations';
import { verifySlackSignature } from './signature';
import { APPROVE_ACTION, bindingOf, placeOf, pressedAt, REJECT_ACTION, routingOf, workspaceMember } from './transform';
import { postEphemeral } from './web-api';

/*
 * POST /api/slack/events/{appId} and /api/slack/interactivity/{appId} (spec 5), one assistant's
 * Slack app behind the channel port:
 * - Verified first: signature v0 with the app's own signing secret (the marketplace app: the
 *   deployment's), within five minutes; otherwise 401 and nothing is stored. An app without
 *   credentials is off: 404 (the adapter finds no connection).
 * - Events: `url_verification` is answered with its challenge; a DM or a mention is a message
 *   (transform.ts says where it is and where its answer goes); the app's uninstallation forgets its
 *   bot in that workspace; anything else is passed over. Slack retries an event it saw no answer
 *   to within 3 seconds (X-Slack-Retry-Num): the core keeps it once by its event_id.
 * - Interactivity: an Approve or Reject press of a card is a press, its button carrying the post's
 *   binding; other interactions are passed over.
 * Slack's legacy verification token rides along in every body: it is a credential, never stored.
 */

const Form = z.object({ payload: z.string().min(2).max(900_000) });

export async function verifySlackWebhook(db: Db, req: WebhookRequest): Promise<Verified> {
  const found = await slackWebhookApp(db, req.connection.id);
  if (!found) return { ok: false, status: 404, reason: 'no such Slack app, or it has no credentials' };
  const check = verifySlackSignature(req.headers, req.rawBody.toString('utf8'), [found.secrets.signingSecret]);
  return check.ok ? { ok: true } : { ok: false, status: 401, reason: 'X-Slack-Signature: missing, wrong, or older than five minutes' };
}

const withoutToken = (body: Record<string, unknown>) => {
  const { token: _verificationToken, ...kept } = body;
  return kept;
};

export function parseSlackWebhook(db: Db, req: WebhookRequest): Promise<InboundEvent> {
  return req.webhook === 'interactivity' ? parsePress(db, req) : parseEvent(db, req);
}

async function parseEvent(db: Db, req: WebhookRequest): Promise<InboundEvent> {
  const app = req.connection;
  const envelope = parseWebhookJson(SlackEnvelope, req.rawBody);
  if (envelope.type === 'url_verification') return { kind: 'ignored', externalId: null, reason: 'url_verification', answer: envelope.challenge };
  const e: EventCallback = envelope;
  const teamId = e.team_id;
  const type = e.event.type;
  if (type === 'app_uninstalled' || type === 'tokens_revoked') {
    // Slack no longer takes this bot's token: forgotten at once (idempotent; a retry finds nothing to forget).
    await forgetSlackInstallation(db, app.id, teamId);
    return { kind: 'ignored', externalId: e.event_id, reason: 'the app was uninstalled from the workspace' };
  }
  const bot = await installedBot(db, app.id, teamId);
  const message = SlackMessageEvent.safeParse(e.event);
  const routing = routingOf(type, message.success ? message.data : null, bot?.botUserId ?? null);
  if (routing.kind === 'ignored') return { kind: 'ignored', externalId: e.event_id, reason: routing.reason };
  const m = routing.event;
  const place = placeOf(app.id, teamId, routing);
  return {
    kind: 'message',
    externalId: e.event_id,
    person: { workspaceId: teamId, userId: m.user!, name: null, proven: workspaceMember(m, teamId, Boolean(bot)) },
    // The thread is the writer's 1:1 one (a DM, or the DM a mention is answered in): only they read it.
    audience: { kind: 'direct', person: m.user! },
    thread: place.thread,
    messageRef: place.messageRef,
    conversationKey: place.conversationKey,
    text: m.text,
    // Fetched after the answer, with the bot's token then.
    files: m.files?.length ? slackInboundFiles(async () => (await slackBot(db, app.id, teamId))?.token ?? null, m.files) : [],
    linkCode: null,
    stored: withoutToken(envelope as Record<string, unknown>),
  };
}

async function parsePress(db: Db, req: WebhookRequest): Promise<InboundEvent> {
  const app = req.connection;
  const form = Form.safeParse(Object.fromEntries(new URLSearchParams(req.rawBody.toString('utf8'))));
  if (!form.success) throw invalidFields([{ field: 'payload', problem: 'is required (Slack sends interactions form-encoded)' }]);
  const payload = parseWebhookJson(BlockActions, form.data.payload, 'payload');
  const action = payload.actions.find((a) => a.action_id === APPROVE_ACTION || a.action_id === REJECT_ACTION);
  // Other interactions (none are sent by Steward's messages) are acknowledged and passed over.
  if (!action) return { kind: 'ignored', externalId: null, reason: 'not an approval button' };
  const bound = bindingOf(action.value);
  if (!bound) throw invalidFields([{ field: 'payload.actions.0.value', problem: 'is not a Steward approval button' }]);
  const teamId = payload.user.team_id ?? payload.team?.id;
  if (!teamId) throw invalidFields([{ field: 'payload.user.team_id', problem: 'is required' }]);
  const channel = payload.container?.channel_id ?? payload.channel?.id;
  const ts = payload.container?.message_ts ?? payload.message?.ts;
  if (!channel || !ts) throw invalidFields([{ field: 'payload.container', problem: 'must name the channel and the message pressed' }]);
  // A card posted before Slack moved behind the port carries its cart and hash: the post they name is the binding.
  const binding = 'binding' in bound ? bound.binding : await legacyBinding(db, app.accountId, bound);
  return {
    kind: 'press',
    externalId: `${payload.trigger_id ?? ''}:${action.action_ts ?? ts}`,
    person: { workspaceId: teamId, userId: payload.user.id, name: null, proven: true },
    binding: binding ?? '',
    decision: action.action_id === APPROVE_ACTION ? 'approve' : 'reject',
    shownIn: pressedAt(app.id, teamId, payload.user.id, channel, ts),
    // Only the presser sees it (a refusal, or the outcome until the card shows it).
    async acknowledge(text) {
      const bot = await slackBot(db, app.id, teamId);
      if (bot) await postEphemeral(bot.token, channel, payload.user.id, text);
    },
    stored: withoutToken(payload as Record<string, unknown>),
  };
}

async function legacyBinding(db: Db, accountId: string, v: { cartId: string; contentHash: string }): Promise<string | null> {
  const [post] = await db
    .select({ id: channelApprovalPosts.id })
    .from(channelApprovalPosts)
    .where(and(eq(channelApprovalPosts.accountId, accountId), eq(channelApprovalPosts.provider, 'slack'), eq(channelApprovalPosts.cartId, v.cartId), eq(channelApprovalPosts.contentHash, v.contentHash)));
  return post?.id ?? null;
}
