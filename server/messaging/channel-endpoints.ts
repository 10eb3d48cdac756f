import { z } from 'zod';
import type { Db } from '@/db/client';
import type { ApiRequest } from '@/server/http/request';
import { defineEndpoint } from '@/server/http/endpoint';
import { capabilityEndpoints } from '@/server/policy/capability-endpoints';
import { ensureChannelWork } from './channel-work';
import { portWebhook } from './port-inbound';
import type { ChannelAdapter, FixedWebhook } from '@/server/channels/adapter';
import { channelAdapters } from '@/server/channels/adapters';

const PortWebhookParams = z.object({ channel: z.string().min(1).max(40), connectionId: z.string().min(1).max(100) });

/*
 * The provider webhooks of the channel port (spec 5; verified by the provider's own signature or
 * token, never by an API credential): the generic one, and each adapter's fixed paths (Teams'
 * /teams/messages, Slack's /slack/events/{appId} and /slack/interactivity/{appId}); and the account and
 * organization capability switches (the adapters' own endpoints come with the list of adapters). server/endpoints.ts adds this list.
 */

/** A port adapter's webhook; approval cards for the port's owners are posted by the channel sweep, running wherever its webhooks are served. */
function servePort(db: Db, req: ApiRequest, channel: string, key: string, at: { fixed: string } | 'generic') {
  ensureChannelWork(db);
  return portWebhook(db, req, channel, key, at);
}

const webhook = { tags: ['Provider webhooks'], auth: 'none' as const, raw: true, response: z.unknown() };

/** One fixed webhook of an adapter, its connection named by the path (`{appId}`) or fixed (`key`). */
function fixedEndpoint(adapter: ChannelAdapter, hook: FixedWebhook) {
  const common = { ...webhook, method: 'POST' as const, path: hook.path, summary: hook.summary, errors: [400, 401, 404, 413] };
  if (hook.param === undefined) return defineEndpoint({ ...common, handle: ({ db, req }) => servePort(db, req, adapter.channel, hook.key, { fixed: hook.name }) });
  const params = z.object({ [hook.param]: z.string().min(1).max(100) });
  return defineEndpoint({ ...common, params, handle: ({ db, req, params: p }) => servePort(db, req, adapter.channel, String((p as Record<string, string>)[hook.param!]), { fixed: hook.name }) });
}

export const portWebhookEndpoints = [
  ...capabilityEndpoints,
  defineEndpoint({
    ...webhook,
    method: 'POST',
    path: '/channels/{channel}/webhooks/{connectionId}',
    summary: 'The webhook of every adapter behind the channel port (telegram): verified by the adapter (Telegram: X-Telegram-Bot-Api-Secret-Token, the secret set with setWebhook), kept once by the provider’s id, routed after the answer',
    params: PortWebhookParams,
    errors: [400, 401, 404, 413],
    handle: ({ db, req, params }) => servePort(db, req, params.channel, params.connectionId, 'generic'),
  }),
  // The port's adapters whose webhook paths the spec fixes, each served there only.
  ...channelAdapters.flatMap((adapter) => (adapter.fixedWebhooks ?? []).map((hook) => fixedEndpoint(adapter, hook))),
];
