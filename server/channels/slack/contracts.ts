import { z } from 'zod';

/*
 * What Slack sends and answers, as far as Steward reads it (Events API, interactivity payloads,
 * Web API answers), and the credentials body of Steward's own API. Provider payloads are parsed
 * loosely (`.loose()`): Slack adds fields, and what is not read is not trusted either.
 */

const SlackId = z.string().min(1).max(64);
const Ts = z.string().regex(/^\d{1,12}\.\d{1,9}$/, 'must be a Slack timestamp');

/** The one event Slack sends unwrapped, when a Request URL is saved. */
export const UrlVerification = z.object({ type: z.literal('url_verification'), challenge: z.string().min(1).max(1000), token: z.string().optional() }).loose();

/**
 * A file as a message event carries it (Slack's file object; issue 41): what a download reads.
 * `url_private_download` (or `url_private`) is fetched with the bot token (scope `files:read`);
 * `mode` `tombstone` (deleted) and `hidden_by_limit` (beyond the workspace's plan), an external
 * file (`is_external`, kept by another service) and a stub (`file_access: check_file_info`, a file
 * from another organization whose details Slack leaves out) have nothing to download.
 */
export const SlackFileObject = z
  .object({
    id: SlackId,
    name: z.string().max(1000).optional(),
    title: z.string().max(1000).optional(),
    mimetype: z.string().max(255).optional(),
    size: z.number().int().nonnegative().optional(),
    mode: z.string().max(64).optional(),
    is_external: z.boolean().optional(),
    file_access: z.string().max(64).optional(),
    url_private: z.string().max(4000).optional(),
    url_private_download: z.string().max(4000).optional(),
  })
  .loose();
export type SlackFileObject = z.infer<typeof SlackFileObject>;

/** A message event (message.im, message.channels) or an app mention: what routing reads of it. */
export const SlackMessageEvent = z
  .object({
    type: z.enum(['message', 'app_mention']),
    subtype: z.string().optional(),
    user: SlackId.optional(),
    bot_id: z.string().optional(),
    text: z.string().max(40_000).default(''),
    ts: Ts,
    thread_ts: Ts.optional(),
    channel: SlackId,
    channel_type: z.string().optional(),
    team: z.string().optional(),
    // Each file is read on its own (SlackFileObject, file-download.ts): one Steward cannot read is
    // named as not received, and never makes the whole message unreadable.
    files: z.array(z.unknown()).optional(),
  })
  .loose();
export type SlackMessageEvent = z.infer<typeof SlackMessageEvent>;

export const EventCallback = z
  .object({
    type: z.literal('event_callback'),
    team_id: SlackId,
    api_app_id: SlackId.optional(),
    event_id: z.string().min(1).max(100),
    event_time: z.number().optional(),
    event: z.object({ type: z.string().min(1).max(100) }).loose(),
  })
  .loose();
export type EventCallback = z.infer<typeof EventCallback>;

export const SlackEnvelope = z.union([UrlVerification, EventCallback]);

/** A button press in a Block Kit message (interactivity, type block_actions). */
export const BlockActions = z
  .object({
    type: z.literal('block_actions'),
    api_app_id: SlackId.optional(),
    team: z.object({ id: SlackId }).loose().nullable().optional(),
    user: z.object({ id: SlackId, team_id: SlackId.optional(), name: z.string().optional(), username: z.string().optional() }).loose(),
    channel: z.object({ id: SlackId }).loose().optional(),
    container: z.object({ message_ts: Ts.optional(), channel_id: SlackId.optional() }).loose().optional(),
    message: z.object({ ts: Ts }).loose().optional(),
    trigger_id: z.string().max(255).optional(),
    actions: z.array(z.object({ action_id: z.string().max(255), value: z.string().max(2000).optional(), block_id: z.string().max(255).optional(), action_ts: z.string().max(64).optional() }).loose()).min(1),
  })
  .loose();
export type BlockActions = z.infer<typeof BlockActions>;

/** Every Web API answer: `ok`, and `error` when it is false (Slack answers HTTP 200 either way). */
export const WebApiAnswer = z.object({ ok: z.boolean(), error: z.string().optional() }).loose();

/** files.getUploadURLExternal: where the bytes go, and the id the file will have. */
export const UploadUrlAnswer = z.object({ ok: z.literal(true), upload_url: z.url(), file_id: z.string().min(1) }).loose();

/** conversations.open: the DM with a member (a file is shared into a conversation, never to a member id). */
export const ConversationsOpenAnswer = z.object({ ok: z.literal(true), channel: z.object({ id: SlackId }).loose() }).loose();

export const PostMessageAnswer = z.object({ ok: z.literal(true), channel: SlackId, ts: Ts }).loose();

export const UsersInfoAnswer = z
  .object({
    ok: z.literal(true),
    user: z.object({ id: SlackId, team_id: z.string().optional(), name: z.string().optional(), real_name: z.string().optional(), is_bot: z.boolean().optional(), profile: z.object({ email: z.string().optional(), display_name: z.string().optional(), real_name: z.string().optional() }).loose().optional() }).loose(),
  })
  .loose();

/** oauth.v2.access: the bot token of an install, the user of a link. */
export const OAuthV2Answer = z
  .object({
    ok: z.literal(true),
    access_token: z.string().optional(),
    token_type: z.string().optional(),
    bot_user_id: z.string().optional(),
    app_id: z.string().optional(),
    team: z.object({ id: SlackId, name: z.string().optional() }).loose().nullable().optional(),
    authed_user: z.object({ id: SlackId }).loose().optional(),
  })
  .loose();

/** PUT /slack-apps/{appId}/credentials: what Slack's "Basic Information" page shows the app's creator. */
export const SlackCredentialsBody = z.object({
  clientId: z.string().trim().min(1, 'is required').max(100).regex(/^[0-9]+\.[0-9]+$/, 'must look like Slack’s Client ID (digits.digits)'),
  clientSecret: z.string().trim().min(8, 'is required').max(200),
  signingSecret: z.string().trim().min(8, 'is required').max(200),
  slackAppId: z.string().trim().regex(/^A[A-Z0-9]{2,30}$/, 'must look like Slack’s App ID (A…)').optional(),
});

export const SlackAppParams = z.object({ appId: z.string().min(1).max(100) });

export const SlackAppView = z.object({
  id: z.string(),
  assistant: z.string(),
  kind: z.string(),
  botDisplayName: z.string(),
  status: z.string(),
  createdAt: z.string(),
  credentials: z.object({ clientId: z.string().nullable(), slackAppId: z.string().nullable(), hasClientSecret: z.boolean(), hasSigningSecret: z.boolean(), source: z.enum(['app', 'deployment', 'none']), setAt: z.string().nullable() }),
  installations: z.array(z.object({ teamId: z.string(), botUserId: z.string().nullable(), installedAt: z.string() })),
});
export const SlackAppEnvelope = z.object({ ok: z.literal(true), slackApp: SlackAppView });
