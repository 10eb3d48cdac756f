import type { Db } from '@/db/client';
import type { Connection, InboundEvent, Verified, WebhookRequest } from '../adapter';
import { parseWebhookJson } from '../webhook-json';
import { Activity, CardInvoke, CardSubmit, isPersonal, type Activity as ActivityT } from './activity';
import { personConnection } from './bot';
import { teamsBotConfig } from './config';
import { rememberConversation } from './conversations';
import { teamsPerson } from './directory';
import { teamsInboundFiles } from './file-download';
import { answerConsent, FileConsentInvoke, isFileConsent } from './file-offers';
import { verifyConnectorToken } from './jwt';
import { invokeAnswer, messageRefOf, personThread } from './transform';

/*
 * POST /api/teams/messages (spec 5), the deployment's Teams bot behind the channel port: every
 * request carries the Bot Connector's JWT (jwt.ts: OpenID metadata keys, issuer, audience =
 * TEAMS_CLIENT_ID, serviceUrl claim = the activity's), or it is refused before anything is stored.
 * The bot is the whole deployment's, so an activity names no assistant: its sender is matched
 * within a connected tenant's directory (directory.ts) to a Steward user, and the event belongs to
 * that user's primary assistant. An unmatched sender, a group chat or channel (spec 1: Teams
 * groups: no), and anything that is no message or press are passed over and kept nowhere.
 */

const NOT_LINKED = 'Only the person this approval belongs to can decide on it, from their own linked account.';
const NOT_BOUND = 'This button is not on an approval Steward posted: nothing was decided. Decide in the app.';
const isInvoke = (a: ActivityT) => a.type === 'invoke' && a.name === 'adaptiveCard/action';

const parseBody = (raw: Buffer): ActivityT => parseWebhookJson(Activity, raw);

export async function verifyTeamsWebhook(_db: Db, req: WebhookRequest): Promise<Verified> {
  const cfg = teamsBotConfig();
  if (!cfg) return { ok: false, status: 404, reason: 'the Teams bot is not configured' };
  const authorization = req.headers.get('authorization');
  if (!authorization) return { ok: false, status: 401, reason: 'Authorization: the Bot Connector’s bearer token is required' };
  const check = await verifyConnectorToken(cfg, authorization, parseBody(req.rawBody));
  return check.ok ? { ok: true } : { ok: false, status: 401, reason: `Authorization: the Bot Connector token did not verify (${check.reason})` };
}

/** The activity in the port's common form, for the connection of the user who wrote (or ignored). */
export async function parseTeamsWebhook(db: Db, req: WebhookRequest): Promise<InboundEvent> {
  const cfg = teamsBotConfig();
  const activity = parseBody(req.rawBody);
  if (!cfg) return { kind: 'ignored', externalId: null, reason: 'the Teams bot is not configured' };
  // The bot's other Bot Framework channels (Web Chat, Direct Line) let their client write channelData,
  // and with it the tenant that names a person: only Teams' own activities are read.
  if (activity.channelId !== 'msteams') return { kind: 'ignored', externalId: null, reason: `not from Teams (channel ${activity.channelId})` };
  if (!isPersonal(activity)) return { kind: 'ignored', externalId: activity.id ?? null, reason: 'not a 1:1 chat with the bot' };
  if (!activity.id) return { kind: 'ignored', externalId: null, reason: 'an activity with no id' };
  // A Teams activity id is the message's arrival time in ms, unique within its conversation only: two
  // people writing in the same millisecond share one. The conversation makes it this event's own, so a
  // redelivery is still recognised and another person's message is never taken for one.
  const eventId = `${activity.conversation.id}|${activity.id}`;
  const person = await teamsPerson(db, cfg, activity);
  if (!person) {
    const reason = 'the sender is no linked user of a connected tenant';
    // A press is answered all the same: the card shows why nothing was decided.
    return { kind: 'ignored', externalId: eventId, reason, ...(isInvoke(activity) ? { answer: invokeAnswer(NOT_LINKED, false) } : {}) };
  }
  // Where the bot answers this person from now on (replies, notices, approval cards), as the Connector's token vouched;
  // not from a stored activity parsed again, which may be older than one noted since.
  if (!req.replay) await rememberConversation(db, person, activity);
  const connection = await personConnection(db, cfg, person);
  if (!connection) return { kind: 'ignored', externalId: eventId, reason: 'the user has no assistant' };
  const who = { workspaceId: person.tenantId, userId: person.aadObjectId, name: activity.from.name ?? null, proven: true };
  const thread = personThread(person.tenantId, person.aadObjectId);
  const shownIn = { thread, messageRef: messageRefOf(thread, activity.conversation.id, activity.replyToId ?? '') };

  // The person's answer to a file the bot offered (file-offers.ts): handled once the Connector has its answer.
  if (isFileConsent(activity)) {
    const answer = FileConsentInvoke.safeParse(activity.value);
    if (!answer.success || req.replay) return { kind: 'ignored', externalId: eventId, reason: 'not a file consent answer Steward reads' };
    return { kind: 'ignored', externalId: eventId, reason: `file consent: ${answer.data.action}`, afterAnswer: () => answerConsent(db, cfg, person.accountId, activity, answer.data) };
  }
  if (isInvoke(activity)) {
    const invoke = CardInvoke.safeParse(activity.value);
    // Not a button Steward bound (another bot's card, or one posted before the port, whose data named the cart): answered, nothing decided.
    if (!invoke.success) return { kind: 'ignored', externalId: eventId, reason: 'not a Steward approval button', answer: invokeAnswer(NOT_BOUND, false) };
    return press(eventId, who, invoke.data.action.data.binding, invoke.data.action.verb, shownIn, connection, { answer: invokeAnswer });
  }
  if (activity.type !== 'message') return { kind: 'ignored', externalId: eventId, reason: `a ${activity.type} activity` };
  const submit = CardSubmit.safeParse(activity.value);
  if (submit.success) return press(eventId, who, submit.data.binding, submit.data.stewardAction, shownIn, connection, {});
  const files = teamsInboundFiles(cfg, activity);
  const text = activity.text?.trim() ?? '';
  if (!text && !files.length) return { kind: 'ignored', externalId: eventId, reason: 'a message with no words and no files' };
  return {
    kind: 'message',
    externalId: eventId,
    person: who,
    thread,
    audience: { kind: 'direct', person: person.aadObjectId },
    messageRef: messageRefOf(thread, activity.conversation.id, activity.id),
    text: activity.text ?? '',
    files,
    linkCode: null,
    connection,
    stored: storedActivity(req.rawBody),
  };
}

/**
 * The activity as it is kept (channel_events.payload): a shared file's download URL is
 * pre-authenticated, a credential for as long as it lasts, so it is never stored. A message the
 * channel sweep routes late from what was kept names such a file as not received.
 */
function storedActivity(raw: Buffer): Record<string, unknown> {
  const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  for (const a of Array.isArray(body.attachments) ? body.attachments : []) {
    const content = (a as { content?: unknown } | null)?.content;
    if (content && typeof content === 'object' && 'downloadUrl' in content) delete (content as Record<string, unknown>).downloadUrl;
  }
  return body;
}

function press(
  externalId: string,
  person: Extract<InboundEvent, { kind: 'press' }>['person'],
  binding: string,
  decision: 'approve' | 'reject',
  shownIn: { thread: string; messageRef: string },
  connection: Connection,
  o: { answer?: (line: string, decided: boolean, words?: string | null) => unknown },
): InboundEvent {
  // Teams shows no toast for a press: an invoke's answer carries the outcome, an older client's card is updated in place.
  return { kind: 'press', externalId, person, binding, decision, shownIn, connection, acknowledge: async () => undefined, ...o };
}
