import type { Db } from '@/db/client';
import type { AnyEndpoint } from '@/server/http/endpoint';
import type { PortChatApp } from '@/db/schema/channel-names';
import type { OutboundTextRow, TextChannel, TextProvider } from '@/db/schema';
import type { CallPlacement } from './calls';
import type { ChannelAttachment, ChannelName, Delivery } from './message';

/*
 * The channel port (issue 41): what every channel adapter offers the core, and nothing more. An
 * adapter lives in one folder, server/channels/<channel>/ (adapter.ts: this interface; api.ts: the
 * provider's API; webhook.ts: verify and parse; transform.ts: pure mapping to and from the common
 * form), and is one line in the list of adapters (adapters.ts). It verifies what its provider sends,
 * maps it to the common inbound form, proves who sent it, and sends what the core asks in a thread;
 * it never decides who the sender is to Steward, where a message goes, whether a reply is an
 * outward action, or whether a press approves anything: the core (server/messaging/) does, the
 * same way for every adapter. The texts, which know people by number rather than by a linked
 * identity, are the sending half (SendingAdapter) and their providers' webhooks (TextWebhook), whose
 * common form is a text (InboundText) the core's texts path keeps and routes.
 */

/**
 * A thread as the adapter encodes it (`<channel>:…`): opaque to the core, which stores it as the
 * message's reference and hands it back to send into the same thread.
 */
export type ThreadRef = string;

/**
 * One of the assistant's connections on a channel (a bot, an app, a number) the webhook reached.
 * `linkedThrough`: the connection a person's link must have been made through for their messages
 * and presses to be their Steward user's (absent: this one, as for an assistant's own bot); null
 * for a deployment-wide bot, whose links come from a connected tenant's directory (Teams).
 */
export type Connection = { id: string; channel: ChannelName; accountId: string; assistantId: string; externalId: string; name: string | null; linkedThrough?: string | null };

/** The connection id a person's link must name, or undefined: any link of the deployment's bot. */
export const linkScope = (c: Connection): string | undefined => (c.linkedThrough === undefined ? c.id : (c.linkedThrough ?? undefined));

/** Who wrote, as the provider proved it: `proven` only when the provider vouches for the id (a secret-carrying webhook of the assistant's own bot, a signed event). */
export type ChannelPerson = { workspaceId: string; userId: string; name: string | null; proven: boolean };

/** Who can read a message sent into a thread: the one person of a 1:1 thread, or a room whose members the adapter cannot list. */
export type ThreadAudience = { kind: 'direct'; person: string } | { kind: 'room'; where: string };

export type InboundFile = { filename: string | null; contentType: string; fetch: () => Promise<ChannelAttachment | { problem: string }> };

/** What a verified webhook carried, in the common form. */
export type InboundEvent =
  | {
      kind: 'message';
      /** The provider's id of this delivery: a redelivery with the same id is acted on once. */
      externalId: string;
      person: ChannelPerson;
      thread: ThreadRef;
      audience: ThreadAudience;
      /** This message as `<thread>#<id>`: the reference a reply threads on, and from which the core reads its thread. */
      messageRef: string;
      text: string;
      files: InboundFile[];
      /** `/start <code>`-style link: the person proves they are the user who asked for the code. */
      linkCode: string | null;
      /** The assistant's connection this message belongs to, when the webhook's is a deployment-wide bot's (resolved from the proven person). */
      connection?: Connection;
      /**
       * The conversation this message continues, when it is not its thread (absent: the thread, or
       * `group:<thread>` for a room). Slack: each channel thread the assistant is mentioned in is its
       * own conversation, although the answer goes to the writer's DM (the message's thread).
       */
      conversationKey?: string;
      /** What is kept of the delivery (channel_events.payload), when it is not the body as JSON (a form, or a body carrying a credential). */
      stored?: Record<string, unknown>;
    }
  | {
      kind: 'press';
      externalId: string;
      person: ChannelPerson;
      /** What the button carried (the core's binding token) and where the pressed message is. */
      binding: string;
      decision: 'approve' | 'reject';
      shownIn: { thread: ThreadRef; messageRef: string };
      /** Acknowledges the press to the presser (a toast), once the core decided. */
      acknowledge: (text: string) => Promise<void>;
      /** As for a message: the connection the press belongs to behind a deployment-wide bot. */
      connection?: Connection;
      /**
       * The webhook's answer to a press the provider waits on (a Teams invoke), with the outcome's
       * line: the answer itself replaces the pressed card, so the core closes nothing more.
       */
      answer?: (line: string, decided: boolean, words?: string | null) => unknown;
      stored?: Record<string, unknown>;
    }
  /**
   * Nothing for the core to act on; `answer`: the webhook's answer when the provider waits for one
   * (a Teams invoke: JSON; Slack's url_verification: a string, answered as text), else 200 with
   * nothing. `afterAnswer`: a step of the provider's own protocol the adapter takes once the
   * webhook has answered (Teams: uploading a file the person allowed).
   */
  | { kind: 'ignored'; externalId: string | null; reason: string; answer?: unknown; afterAnswer?: () => Promise<void> };

/**
 * `webhook`: which of the adapter's fixed webhooks was called (its `name`), when it has several.
 * `replay`: a stored update parsed again by the channel sweep (its routing was lost): the adapter
 * notes nothing from it (where to answer a person, say), since it may be older than what it noted since.
 */
export type WebhookRequest = { headers: Pick<Headers, 'get'>; rawBody: Buffer; connection: Connection; webhook?: string; replay?: boolean };

/**
 * A webhook path the spec fixes. `key`: the connection it serves (Teams' one bot), or `param`: the
 * path parameter naming the connection (Slack's `{appId}`); `name` tells the adapter which it is.
 */
export type FixedWebhook = { path: string; name: string; summary: string } & ({ key: string; param?: undefined } | { param: string; key?: undefined });

export type Verified = { ok: true } | { ok: false; status: 401 | 403 | 404; reason: string };

/** A file the core sends as its bytes (every adapter with `files` but not `fileLinks`). */
export type OutboundFile = { filename: string; contentType: string; content: Buffer };

/** A file the core sends as a signed link the provider fetches it by (an adapter with `fileLinks`): its bytes are never read for it. */
export type LinkedFile = { filename: string; contentType: string; url: string };

/** A button the core binds: `binding` is its own token (never a cart id and hash in the clear); the adapter only carries it. */
export type OutboundButton = { text: string; decision: 'approve' | 'reject'; binding: string };

/**
 * What the core sends. `reply`: a chat turn's answer in the thread it was asked in; `notice`:
 * Steward's own word to the owner; `dispatch`: an approved send_message; `code`: a sign-in or
 * approval code. The kind is said, never guessed from an id's shape.
 */
export type SendRequest = {
  kind: 'reply' | 'notice' | 'dispatch' | 'code';
  connection: Connection;
  /** The thread to send into (a reply, a notice to a known chat), or null with `to` (a dispatch to a person by their id). */
  thread: ThreadRef | null;
  to?: string | null;
  /** The message this one answers in the thread, when threading is asked for. */
  replyTo?: string | null;
  /** The thread's earlier messages, oldest first, for a channel that threads by naming them (mail's References). */
  references?: string[];
  text: string;
  files: OutboundFile[];
  /** The files as links, to an adapter with `fileLinks` (and then `files` is empty). */
  links?: LinkedFile[];
  buttons?: OutboundButton[];
  /**
   * The core's own id of this send, chosen before it (a reply's or notice's intent, a dispatch's
   * job key): an adapter that records its intent or hands the provider an idempotency key uses it,
   * so a retry of the same send is recognised (texts: never sent twice).
   */
  ref?: string | null;
  /** A subject, for a channel that carries one apart from the text: mail's, or a notice's (a WhatsApp notice template's variable). */
  subject?: string | null;
  /** An approved dispatch's template instead of free text (WhatsApp outside its 24-hour window), and the dispatch it sends. */
  template?: { id: string; variables: Record<string, string> } | null;
  dispatchId?: string | null;
};

/**
 * What the core may ask for instead of guessing; absent means not offered. `fileLinks`: the
 * provider fetches files by link (Twilio's MMS), so the core gives each file a signed link
 * (`links`) and never reads its bytes for the send.
 */
export type ChannelCapabilities = { buttons?: boolean; files?: boolean; fileLinks?: boolean; groups?: boolean; typing?: boolean; edits?: boolean; calls?: boolean };

/**
 * The sending half of the port: everything the core sends on a channel (a turn's reply, a notice, an
 * approved send_message, an approval card) goes through it. A chat app is a whole ChannelAdapter;
 * the texts (server/channels/texts/) are this half and their providers' webhooks (TextWebhook).
 */
export interface SendingAdapter<C extends ChannelName = ChannelName> {
  channel: C;
  /** The channel's name as people know it ("Telegram"), in what the core says on it. */
  label: string;
  capabilities: ChannelCapabilities;
  /** Whether the channel's provider is configured now; absent: always. Unconfigured, a send fails with `no provider configured for <channel>` before anything is read. */
  configured?(): boolean;
  /**
   * The assistant's connection on this channel (its bot), to send as it; null when it has none. An
   * adapter where an assistant may have several (Slack: its own app and the marketplace app) reads
   * the one a thread belongs to from `thread`, and never answers another assistant's.
   */
  connectionFor(db: Db, assistantId: string, thread?: ThreadRef | null): Promise<Connection | null>;
  send(db: Db, req: SendRequest): Promise<Delivery>;
  /** Who reads what is sent into a thread (the audience rule's question). */
  audienceOf(thread: ThreadRef): ThreadAudience;
  /** The 1:1 thread with a person, to send to them first (approvals, notices); `linkedThrough`: the connection their link was made through. */
  directThread(person: { workspaceId: string; userId: string; linkedThrough?: string | null }): ThreadRef;
  /**
   * The owner's own 1:1 threads, when the channel knows people by a verified identifier of theirs
   * rather than an identity they linked (texts: their verified numbers, primary first). Absent: the
   * identities they linked (channel_identities).
   */
  ownerThreads?(db: Db, userId: string): Promise<ThreadRef[]>;
  /**
   * Removes a posted card's buttons (edits capability): the card keeps `words` (what it showed, as
   * the core renders that version again) and ends with `line`, the outcome; without `words` (the
   * version is gone), the line alone.
   */
  closeButtons?(db: Db, connection: Connection, at: { thread: ThreadRef; messageRef: string }, line: string, words?: string | null): Promise<void>;
  /** Replaces the text of a message the connection posted (edits capability): a turn's progress line. */
  editText?(db: Db, connection: Connection, messageRef: string, text: string): Promise<void>;
  /**
   * A turn that has not answered after `afterMs` shows it is working: one message in the thread,
   * edited as the turn moves (messaging/turn-progress.ts). Absent: no progress is shown.
   */
  progressAfterMs?(): number;
  /** The display name of someone the provider did not name and Steward does not know (shown to the owner beside their words), best effort. */
  nameOf?(db: Db, connection: Connection, person: ChannelPerson): Promise<string | null>;
}

/**
 * The calls capability: a channel that places the phone calls the owner approved (place_call). The
 * approval's delivery asks it once per released dispatch version; the adapter dials exactly once
 * under `idempotencyKey`, and `accepted` means the provider is dialling. What the callee says
 * reaches the task later, from the channel's own webhooks.
 */
export interface CallingAdapter {
  channel: 'voice';
  label: string;
  capabilities: ChannelCapabilities & { calls: true };
  configured(): boolean;
  placeCall(db: Db, call: CallPlacement): Promise<Delivery>;
}

/** A channel wholly behind the port: its webhooks verified and parsed here too, served by the core's one webhook endpoint. */
export interface ChannelAdapter extends SendingAdapter<PortChatApp> {
  /** The adapter's own API (connecting the assistant's bot or app), served with every other endpoint. */
  endpoints?: AnyEndpoint[];
  /**
   * The webhook's own paths when the spec fixes them (Teams: /teams/messages, the deployment's bot;
   * Slack: /slack/events/{appId} and /slack/interactivity/{appId}): served there only, and the
   * generic /channels/{channel}/webhooks/{key} answers 404.
   */
  fixedWebhooks?: FixedWebhook[];
  /** The connection a webhook path names (the assistant's bot or app), or null: the endpoint answers 404. */
  connection(db: Db, key: string): Promise<Connection | null>;
  /**
   * A one-time code the person sent in their 1:1 thread (linkCode): when it is the one issued for the
   * connection's owner, the person is linked to them (a channel identity) and the owner's id comes back.
   */
  redeemLink?(db: Db, connection: Connection, code: string, person: ChannelPerson): Promise<string | null>;
  /** Whether the request is the provider's (signature, secret, token): nothing is stored before this says yes. */
  verifyWebhook(db: Db, req: WebhookRequest): Promise<Verified>;
  /** The verified request in the common form (pure mapping; files fetched only when asked). */
  parseWebhook(db: Db, req: WebhookRequest): Promise<InboundEvent>;
}

/*
 * The texts' inbound half. A text provider's webhook is the provider's, not a connection's (one
 * Twilio webhook serves every assistant's number and two channels, SMS and WhatsApp): the adapter
 * verifies it and maps it to a text or a status report; the core (messaging/texts-webhooks.ts,
 * texts-inbound.ts) finds the line the text reached, knows the writer by their verified number,
 * reads STOP/START/HELP and reply codes, keeps the text once by the provider's id, and routes it.
 */

/** A text as its provider's webhook carried it. `keyword`: the provider's opt-out vocabulary, read by the adapter (Twilio's OptOutType, Sendblue's opted_out). */
export type InboundText = {
  provider: TextProvider;
  channel: TextChannel;
  providerMessageId: string;
  /** The person who wrote (E.164) and the assistant's number it reached. */
  from: string;
  to: string;
  /** A group conversation's provider id, and everyone in it. */
  groupId: string | null;
  participants: string[];
  body: string;
  /** The name the provider shows for the writer (WhatsApp's profile name), unproven. */
  name: string | null;
  files: InboundFile[];
  keyword: 'stop' | 'start' | 'help' | null;
};

/** A provider's word on a text Steward sent. `ref`: the send's id, as Steward put it in the callback URL (only a well-formed one). */
export type TextStatusReport = { provider: TextProvider; ref: string | null; providerMessageId: string; status: OutboundTextRow['status']; errorCode: string | null; detail?: string | null };

export type TextWebhookEvent = { kind: 'text'; text: InboundText } | { kind: 'status'; report: TextStatusReport } | { kind: 'ignored'; reason: string };

/** `url`: the URL the provider was given, as it signs it: STEWARD_PUBLIC_URL with the path and query called (never the Host header). */
export type TextWebhookRequest = { url: URL; headers: Pick<Headers, 'get'>; rawBody: Buffer };

/** What the webhook answers once the core is done: the provider's expected body (Twilio: empty TwiML), or none. */
export type WebhookAnswer = { status: 200 | 204; contentType?: string; body?: string };

/** One of a text provider's webhooks, at the path the spec fixes for it. */
export interface TextWebhook {
  path: string;
  summary: string;
  description: string;
  /** Off while its provider is not configured: the path answers 404. */
  configured(): boolean;
  /** Whether the request is the provider's: refused (403), nothing is read further or stored. */
  verify(req: TextWebhookRequest): Verified;
  /** The verified request in the common form; parameters that do not fit answer 400 naming each. */
  parse(req: TextWebhookRequest): TextWebhookEvent;
  answer: WebhookAnswer;
}
