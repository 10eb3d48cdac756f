import { sharedDatabase } from '@/db/client';
import { registerChannelAdapter } from '@/server/channels/outbound';
import { teamsBotConfig } from '@/server/channels/teams/config';
import { markNoticeChannelReachable } from '@/server/notices/create';
import { slackDispatchAdapter, teamsDispatchAdapter } from '@/server/messaging/chat-dispatches';
import { registerChannelSender } from '@/server/channels/senders';
import { slackSender } from '@/server/messaging/slack-sender';
import { teamsSender } from '@/server/messaging/teams-sender';

/*
 * Composition (entry floor): Slack and Teams as channels of the messaging layer. Their senders
 * answer chat turns in the thread a message came from and carry notices to a user who chose Slack
 * or Teams (a user the channel cannot reach gets a failed notice, said so). The senders read the
 * deployment's database, as the engine's functions do. Imported by server/task-hooks.ts, which
 * every process that serves the API loads. The webhooks themselves are endpoints
 * (server/messaging/channel-endpoints.ts); their background work (approval cards, events whose
 * routing was lost) starts with the first request they serve (server/messaging/channel-work.ts).
 */
const db = () => sharedDatabase().db;

registerChannelSender(slackSender(db));
registerChannelSender(teamsSender(db));
// send_message's approved dispatches on Slack and Teams (the assistant's own app; the deployment's bot).
registerChannelAdapter(slackDispatchAdapter(db));
registerChannelAdapter(teamsDispatchAdapter(db));
markNoticeChannelReachable('slack');
// Teams is the deployment's bot: without its credentials a notice for Teams falls back to email.
if (teamsBotConfig()) markNoticeChannelReachable('teams');
