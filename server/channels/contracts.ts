import { z } from 'zod';
import { oauthChatApps } from '@/db/schema/channel-names';

/** A redirect has no JSON body to describe. */
export const RedirectResponse = z.unknown();

export const PhoneLineRequestBody = z.object({
  requestedChannels: z
    .object({ imessage: z.boolean().default(false), sms: z.boolean().default(false), whatsapp: z.boolean().default(false), voice: z.boolean().default(false) })
    .default({ imessage: false, sms: false, whatsapp: false, voice: false }),
  notes: z.string().max(2000).default(''),
});
const PhoneLineRequest = z.object({
  id: z.string(),
  assistant: z.string(),
  requestedChannels: z.object({ imessage: z.boolean(), sms: z.boolean(), whatsapp: z.boolean(), voice: z.boolean() }),
  notes: z.string(),
  status: z.enum(['pending', 'fulfilled', 'dismissed']),
  dismissalReason: z.string().nullable().optional(),
  createdAt: z.string(),
});
export const PhoneLineRequestResponse = z.object({ ok: z.literal(true), request: PhoneLineRequest });
export const MyPhoneLineResponse = z.object({ ok: z.literal(true), request: PhoneLineRequest.nullable() });

export const CreateSlackAppBody = z.object({
  kind: z.enum(['marketplace', 'workspace']),
  botDisplayName: z.string().trim().min(1, 'is required').max(80),
});
export const SlackAppResponse = z.object({
  ok: z.literal(true),
  slackApp: z.object({ id: z.string(), assistant: z.string(), kind: z.string(), botDisplayName: z.string(), status: z.string(), createdAt: z.string() }),
  manifest: z.object({ manifestJson: z.record(z.string(), z.unknown()), createAppUrl: z.string(), eventsUrl: z.string(), redirectUrls: z.array(z.string()) }),
});

export const SlackStartQuery = z.object({ assistantId: z.string().min(1, 'is required') });
export const TeamsStartQuery = z.object({ target: z.enum(['team', 'org']), targetId: z.string().min(1, 'is required') });
export const BeginQuery = z.object({ state: z.string().min(1, 'is required').max(4096) });
export const CallbackQuery = z.object({ code: z.string().min(1).optional(), state: z.string().min(1, 'is required'), error: z.string().optional() });
export const CallbackParams = z.object({ provider: z.enum(oauthChatApps) });
export const OAuthConnectionResponse = z.object({
  ok: z.literal(true),
  connection: z.object({
    id: z.string(),
    provider: z.string(),
    purpose: z.string(),
    assistant: z.string().nullable(),
    target: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  }),
});
