/*
 * How a Slack message is named in the channel layer (InboundChannelMessage.providerMessageId, a
 * chat message's referenceId): everything a reply needs — the app (whose bot posts), the workspace,
 * the conversation to answer in, the thread to answer under (`-`: none), the message itself, and,
 * for a mention in a channel whose answer goes to the owner's DM instead, the channel it came from.
 */

export type SlackRef = { appId: string; teamId: string; channel: string; threadTs: string | null; ts: string; mentionedIn?: string | null };

const SLACK_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TS = /^\d{1,12}\.\d{1,9}$/;

export const slackRef = (r: SlackRef) => `slack:${r.appId}:${r.teamId}:${r.channel}:${r.threadTs ?? '-'}:${r.ts}${r.mentionedIn ? `:${r.mentionedIn}` : ''}`;

export function parseSlackRef(value: string | null | undefined): SlackRef | null {
  if (!value?.startsWith('slack:')) return null;
  const [, appId, teamId, channel, threadTs, ts, mentionedIn, ...rest] = value.split(':');
  if (rest.length || ![appId, teamId, channel].every((x) => x && SLACK_ID.test(x)) || !TS.test(ts ?? '')) return null;
  if (threadTs !== '-' && !TS.test(threadTs ?? '')) return null;
  if (mentionedIn !== undefined && !SLACK_ID.test(mentionedIn)) return null;
  return { appId: appId!, teamId: teamId!, channel: channel!, threadTs: threadTs === '-' ? null : threadTs!, ts: ts!, mentionedIn: mentionedIn ?? null };
}
