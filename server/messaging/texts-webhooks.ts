import { z } from 'zod';
import type { Db } from '@/db/client';
import type { TextWebhook, WebhookAnswer } from '@/server/channels/adapter';
import { textProviderWebhooks } from '@/server/channels/adapters';
import { defineEndpoint } from '@/server/http/endpoint';
import { AppError, notFound } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { fetchInboundFiles } from './inbound-files';
import { refused, webhookRequest } from './provider-webhook';
import { receiveText } from './texts-inbound';
import { applyTextStatus } from './texts-status';

/*
 * The texts' provider webhooks (spec 5, Provider webhooks), the same for each: served by the
 * kernel without a credential; off (404) while the provider is not configured; verified by the
 * texts' adapter (channels/texts/webhook.ts) before anything is read or stored (403, nothing
 * kept); parsed to a text or a status report; then the core acts: a text's files are fetched and
 * it is kept and routed once (texts-inbound.ts: the line it reached, the writer by their verified
 * number, STOP/START/HELP, reply codes), a status moves a sent text on (texts-status.ts). The
 * answer is the one the provider expects (Twilio: empty TwiML).
 */

const answered = (a: WebhookAnswer) => new Response(a.body ?? null, { status: a.status, headers: { 'Cache-Control': 'no-store', ...(a.contentType ? { 'Content-Type': a.contentType } : {}) } });

async function serve(db: Db, req: ApiRequest, hook: TextWebhook): Promise<Response> {
  if (!hook.configured()) throw notFound('Text provider webhooks');
  const request = await webhookRequest(req);
  const verified = hook.verify(request);
  if (!verified.ok) refused(verified, 'Text provider webhooks');
  const event = hook.parse(request);
  if (event.kind === 'text') {
    const { files, ...text } = event.text;
    const { attachments, problems } = await fetchInboundFiles(files);
    await receiveText(db, { ...text, attachments, mediaProblems: problems });
  } else if (event.kind === 'status') {
    await applyTextStatus(db, event.report);
  }
  return answered(hook.answer);
}

export const textWebhookEndpoints = textProviderWebhooks.map((hook) =>
  defineEndpoint({
    method: 'POST',
    path: hook.path,
    summary: hook.summary,
    description: hook.description,
    tags: ['Channels'],
    auth: 'none',
    raw: true,
    response: z.unknown(),
    errors: [400, 403, 404, 413],
    handle: async ({ db, req }) => {
      try {
        return await serve(db, req, hook);
      } catch (e) {
        if (!(e instanceof AppError)) logger.error({ err: e, path: hook.path }, 'texts: a provider webhook could not be handled');
        throw e;
      }
    },
  }),
);
