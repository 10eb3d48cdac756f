/*
 * The channel names, declared once (issue 41). Every other list of channels in Steward (the
 * schema's enums, the contracts, the adapters, the settings pages) is built from these lists
 * or narrowed from their types; tests/channels/channel-names.test.ts fails on a list written
 * out by hand anywhere else. A new channel is one name here, in the group it belongs to.
 */

/** Mail: the assistant's hosted inbox, and the user's own mailbox at Google or Microsoft 365. */
export const mailboxProviders = ['gmail', 'outlook'] as const;
/** A provider of the user's own mailbox. */
export type MailboxProvider = (typeof mailboxProviders)[number];
export const mailChannels = ['email', ...mailboxProviders] as const;

/** Texts on an assistant's own number. */
export const textChannels = ['sms', 'whatsapp', 'imessage'] as const;
/** What Twilio carries of them (iMessage goes through Sendblue). */
export const twilioTextChannels = ['sms', 'whatsapp'] as const satisfies readonly (typeof textChannels)[number][];

/** Chat apps with their own user ids (an identity linked to a Steward user, a button press bound to the app). */
export const chatAppChannels = ['slack', 'teams', 'telegram'] as const;
/** The chat apps installed through OAuth (Telegram connects with a bot token instead). */
export const oauthChatApps = ['slack', 'teams'] as const satisfies readonly (typeof chatAppChannels)[number][];
/** The chat apps, all behind the channel port (server/channels/adapters.ts). */
export type PortChatApp = (typeof chatAppChannels)[number];

/** Every channel an adapter speaks. */
export const channelNames = [...mailChannels, ...textChannels, ...chatAppChannels, 'voice'] as const;
export type ChannelName = (typeof channelNames)[number];

/** What an assistant's phone line can serve. */
export const phoneChannels = [...textChannels, 'voice'] as const;
/** send_message's platforms (spec 4). */
export const messagePlatforms = [...textChannels, ...chatAppChannels] as const;
/** Where Steward's notices reach the user (preferences.notifications; Telegram and calls carry none yet). */
export const noticeChannels = ['email', ...textChannels, ...oauthChatApps] as const;

/**
 * A chat's platform (spec 2): `chat` the hosted app, `task_activity` a task's own thread, `phone`
 * and `voice` calls (`voice`: a call to the assistant's number, or a message spoken in the hosted
 * app); `rcs` and `discord` are named by the spec and have no adapter yet.
 */
export const chatPlatforms = ['chat', 'email', 'slack', 'teams', 'sms', 'whatsapp', 'imessage', 'rcs', 'phone', 'discord', 'telegram', 'task_activity', 'voice'] as const;
