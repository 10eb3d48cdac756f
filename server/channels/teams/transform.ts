import type { OutboundButton, ThreadAudience, ThreadRef } from '../adapter';
import type { TeamsActivity } from './connector';

/*
 * Teams' Bot Framework objects to and from the port's common form (server/channels/adapter.ts), as
 * pure functions: no database, no network, tested without a server.
 *
 * Threads: the deployment's bot serves 1:1 chats only (spec 1: Teams groups: no), so a thread is a
 * person's chat with the bot, named by who they are (`teams:u:<tenant>:<Entra object id>`) and
 * resolved to the conversation they last wrote from when something is sent. A message is
 * `<thread>#<conversation id, base64url>.<activity id>`: the conversation stays part of a message's
 * name, so a press on a card counts only in the conversation the card was posted to.
 */

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const unb64 = (s: string) => Buffer.from(s, 'base64url').toString('utf8');

const ID = /^[0-9a-z-]{1,100}$/;

export const personThread = (tenantId: string, aadObjectId: string): ThreadRef => `teams:u:${tenantId.toLowerCase()}:${aadObjectId.toLowerCase()}`;

export function parseThread(ref: string | null | undefined): { tenantId: string; aadObjectId: string } | null {
  const m = /^teams:u:([^:]+):([^:]+)$/.exec(ref ?? '');
  return m && ID.test(m[1]!) && ID.test(m[2]!) ? { tenantId: m[1]!, aadObjectId: m[2]! } : null;
}

export const messageRefOf = (thread: ThreadRef, conversationId: string, activityId: string) => `${thread}#${b64(conversationId)}.${activityId}`;

/** A reference written before Teams moved behind the port: `teams:<base64url of {c: conversation, a: activity}>`. */
function legacyRef(value: string): { conversationId: string; activityId: string } | null {
  if (!value.startsWith('teams:')) return null;
  try {
    const { c, a } = JSON.parse(Buffer.from(value.slice('teams:'.length), 'base64url').toString('utf8')) as { c?: unknown; a?: unknown };
    return typeof c === 'string' && typeof a === 'string' && c && a ? { conversationId: c, activityId: a } : null;
  } catch {
    return null;
  }
}

export type ParsedMessageRef = { thread: { tenantId: string; aadObjectId: string } | null; conversationId: string; activityId: string };

/**
 * A message reference, or one written before Teams moved behind the port (legacyRef, kept on
 * older chat messages and cards), which names the conversation and the activity but no person.
 */
export function parseMessageRef(ref: string | null | undefined): ParsedMessageRef | null {
  const value = ref ?? '';
  const at = value.indexOf('#');
  if (at < 0) {
    const legacy = legacyRef(value);
    return legacy ? { thread: null, ...legacy } : null;
  }
  const thread = parseThread(value.slice(0, at));
  const m = /^([A-Za-z0-9_-]{1,1400})\.(.+)$/s.exec(value.slice(at + 1));
  const conversationId = m ? unb64(m[1]!) : '';
  return thread && m && conversationId ? { thread, conversationId, activityId: m[2]! } : null;
}

/** A person's thread is a 1:1 chat (as is a reference from before the port: the bot served no other); anything else is not known to be. */
export function audienceOfThread(thread: ThreadRef): ThreadAudience {
  const t = parseThread(thread);
  if (t) return { kind: 'direct', person: t.aadObjectId };
  const legacy = legacyRef(thread);
  return legacy ? { kind: 'direct', person: legacy.conversationId } : { kind: 'room', where: 'an unknown Teams conversation' };
}

export const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';
export type AdaptiveCard = { type: 'AdaptiveCard'; $schema: string; version: string; body: Record<string, unknown>[]; actions?: Record<string, unknown>[] };

const cardOf = (body: Record<string, unknown>[], actions?: Record<string, unknown>[]): AdaptiveCard => ({
  type: 'AdaptiveCard',
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
  version: '1.4',
  body,
  ...(actions ? { actions } : {}),
});

/** Words shown literally (a RichTextBlock's TextRun; a TextBlock would read them as markdown). */
const literal = (text: string) => ({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: text || ' ' }] });

/**
 * The button's data is the core's binding token and nothing else; Action.Execute (the
 * `adaptiveCard/action` invoke) with Action.Submit as the fallback of older clients.
 */
function buttonOf(b: OutboundButton): Record<string, unknown> {
  return {
    type: 'Action.Execute',
    title: b.text,
    verb: b.decision,
    data: { binding: b.binding },
    style: b.decision === 'approve' ? 'positive' : 'destructive',
    fallback: { type: 'Action.Submit', title: b.text, data: { binding: b.binding, stewardAction: b.decision } },
  };
}

/** What the core sends, as a Bot Framework message: plain text, or a card when it carries buttons. */
export function outboundActivity(text: string, buttons?: OutboundButton[]): TeamsActivity {
  if (!buttons?.length) return { type: 'message', text, textFormat: 'plain' };
  return { type: 'message', attachments: [{ contentType: ADAPTIVE_CARD, content: cardOf([literal(text)], buttons.map(buttonOf)) }] };
}

/** A decided card: its buttons give way to the outcome's line, under the words it showed when the core still has them. */
export const closedCard = (line: string, words?: string | null): AdaptiveCard => cardOf([...(words ? [literal(words)] : []), { type: 'TextBlock', text: line, wrap: true, weight: 'Bolder' }]);

/** The answer to an `adaptiveCard/action` invoke: the closed card once decided, otherwise the line as a message. */
export function invokeAnswer(line: string, decided: boolean, words?: string | null): unknown {
  return decided ? { statusCode: 200, type: ADAPTIVE_CARD, value: closedCard(line, words) } : { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: line };
}
