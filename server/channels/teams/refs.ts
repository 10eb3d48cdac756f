/*
 * How a Teams message is named in the channel layer (providerMessageId, a chat message's
 * referenceId): its conversation and activity, so a reply goes to that conversation (its
 * serviceUrl is the one stored for the conversation, which the Connector's token vouched for).
 */

export type TeamsRef = { conversationId: string; activityId: string };

export const teamsRef = (r: TeamsRef) => `teams:${Buffer.from(JSON.stringify({ c: r.conversationId, a: r.activityId }), 'utf8').toString('base64url')}`;

export function parseTeamsRef(value: string | null | undefined): TeamsRef | null {
  if (!value?.startsWith('teams:')) return null;
  try {
    const { c, a } = JSON.parse(Buffer.from(value.slice('teams:'.length), 'base64url').toString('utf8')) as { c?: unknown; a?: unknown };
    return typeof c === 'string' && typeof a === 'string' && c && a ? { conversationId: c, activityId: a } : null;
  } catch {
    return null;
  }
}
