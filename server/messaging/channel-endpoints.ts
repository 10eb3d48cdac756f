import { z } from 'zod';
import type { Db } from '@/db/client';
import type { ApiRequest } from '@/server/http/request';
import { slackAppEndpoints } from '@/server/channels/slack/endpoints';
import { SlackAppParams } from '@/server/channels/slack/contracts';
import { defineEndpoint } from '@/server/http/endpoint';
import { capabilityEndpoints } from '@/server/policy/capability-endpoints';
import { slackEvents } from './slack-inbound';
import { slackInteractivity } from './slack-interactivity';
import { ensureChannelWork } from './channel-work';
import { portWebhook } from './port-inbound';
import { channelAdapters } from '@/server/channels/adapters';

const PortWebhookParams = z.object({ channel: z.string().min(1).max(40), connectionId: z.string().min(1).max(100) });

/*
 * Slack and Teams (issue 33): the provider webhooks of spec 5 (verified by the provider's own
 * signature or token, never by an API credential), the Slack app credentials endpoints, and the
 * account and organization capability switches. server/endpoints.ts adds this list.
 */

/** A port adapter's webhook; approval cards for the port's owners are posted by the channel sweep, running wherever its webhooks are served. */
function servePort(db: Db, req: ApiRequest, channel: string, key: string, at: 'generic' | 'fixed') {
  ensureChannelWork(db);
  return portWebhook(db, req, channel, key, at);
}

const webhook = { tags: ['Provider webhooks'], auth: 'none' as const, raw: true, response: z.unknown() };

export const slackTeamsEndpoints = [
  ...slackAppEndpoints,
  ...capabilityEndpoints,
  defineEndpoint({
    ...webhook,
    method: 'POST',
    path: '/slack/events/{appId}',
    summary: 'Slack Events API for one assistant’s app (X-Slack-Signature v0 with the app’s signing secret, five minutes); url_verification answered; events kept once by event_id',
    params: SlackAppParams,
    errors: [400, 401, 404, 413],
    handle: ({ db, req, params }) => slackEvents(db, req, params.appId),
  }),
  defineEndpoint({
    ...webhook,
    method: 'POST',
    path: '/slack/interactivity/{appId}',
    summary: 'Slack block actions for one assistant’s app: Approve and Reject buttons of approval cards (signed like events)',
    params: SlackAppParams,
    errors: [400, 401, 404, 413],
    handle: ({ db, req, params }) => slackInteractivity(db, req, params.appId),
  }),
  defineEndpoint({
    ...webhook,
    method: 'POST',
    path: '/channels/{channel}/webhooks/{connectionId}',
    summary: 'The webhook of every adapter behind the channel port (telegram): verified by the adapter (Telegram: X-Telegram-Bot-Api-Secret-Token, the secret set with setWebhook), kept once by the provider’s id, routed after the answer',
    params: PortWebhookParams,
    errors: [400, 401, 404, 413],
    handle: ({ db, req, params }) => servePort(db, req, params.channel, params.connectionId, 'generic'),
  }),
  // The port's adapters whose webhook path the spec fixes (Teams: /teams/messages), each served there only.
  ...channelAdapters.flatMap((adapter) =>
    adapter.fixedWebhook
      ? [
          defineEndpoint({
            ...webhook,
            method: 'POST',
            path: adapter.fixedWebhook.path,
            summary: adapter.fixedWebhook.summary,
            errors: [400, 401, 404, 413],
            handle: ({ db, req }) => servePort(db, req, adapter.channel, adapter.fixedWebhook!.key, 'fixed'),
          }),
        ]
      : [],
  ),
];
