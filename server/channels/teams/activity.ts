import { z } from 'zod';

/*
 * The Bot Framework activities Steward reads (Bot Framework Activity schema): messages in a 1:1
 * chat, Adaptive Card button presses (invoke `adaptiveCard/action`, or a message carrying the
 * card's `value` from an older client's Action.Submit), and conversation updates. Parsed loosely:
 * the Connector adds fields, and what is not read is not trusted either.
 */

const Account = z.object({ id: z.string().min(1).max(500), name: z.string().max(500).optional(), aadObjectId: z.string().max(100).optional() }).loose();

export const Activity = z
  .object({
    type: z.string().min(1).max(100),
    id: z.string().max(500).optional(),
    timestamp: z.string().optional(),
    serviceUrl: z.string().url().max(2000),
    channelId: z.string().min(1).max(100),
    from: Account,
    recipient: Account,
    conversation: z.object({ id: z.string().min(1).max(1000), conversationType: z.string().optional(), tenantId: z.string().optional(), isGroup: z.boolean().optional() }).loose(),
    text: z.string().max(40_000).optional(),
    value: z.unknown().optional(),
    name: z.string().max(200).optional(),
    replyToId: z.string().max(500).optional(),
    channelData: z.object({ tenant: z.object({ id: z.string() }).loose().optional() }).loose().optional(),
    // Each read on its own (teams/file-download.ts): one odd attachment must not refuse the message.
    attachments: z.array(z.unknown()).optional(),
  })
  .loose();
export type Activity = z.infer<typeof Activity>;

/** A file the person sent in a 1:1 chat (Teams: "Send and receive files using bot"): kept in their OneDrive, named by a pre-authenticated download URL. */
export const FILE_DOWNLOAD_INFO = 'application/vnd.microsoft.teams.file.download.info';
export const FileDownloadInfo = z
  .object({
    contentType: z.literal(FILE_DOWNLOAD_INFO),
    name: z.string().max(500).optional(),
    content: z.object({ downloadUrl: z.string().url().max(8000), uniqueId: z.string().max(200).optional(), fileType: z.string().max(100).optional() }).loose(),
  })
  .loose();

/** Any other attachment with bytes behind a URL: an image pasted inline is held by the Bot Connector (contentUrl, the bot's token). */
export const UrlAttachment = z.object({ contentType: z.string().min(1).max(200), contentUrl: z.string().url().max(8000), name: z.string().max(500).optional() }).loose();

/** The card's data on both buttons: the core's binding token (the post it names names the cart version). */
export const CardData = z.object({ binding: z.string().min(1).max(100) });

/** invoke `adaptiveCard/action` (Action.Execute). */
export const CardInvoke = z.object({ action: z.object({ type: z.literal('Action.Execute'), verb: z.enum(['approve', 'reject']), data: CardData }).loose() }).loose();

/** An older client's Action.Submit: a message whose value is the action's data. */
export const CardSubmit = CardData.extend({ stewardAction: z.enum(['approve', 'reject']) });

export const tenantOf = (a: Activity) => (a.conversation.tenantId ?? a.channelData?.tenant?.id ?? '').toLowerCase() || null;

/** A 1:1 chat with the bot (Teams' `personal` conversations; groups and channels are not served). */
export const isPersonal = (a: Activity) => a.conversation.conversationType === 'personal' || (a.conversation.conversationType === undefined && a.conversation.isGroup !== true);
