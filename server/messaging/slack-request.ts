import type { Db } from '@/db/client';
import { slackWebhookApp } from '@/server/channels/slack/credentials';
import { verifySlackSignature } from '@/server/channels/slack/signature';
import { AppError, notFound } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { rawBody } from './webhook-body';

/**
 * A request to one assistant's Slack app (its events, its interactivity), verified before
 * anything is read from it: an app without credentials is off (404); the body must carry Slack's
 * signature v0 made with the app's own signing secret (the marketplace app: the deployment's),
 * within five minutes, or it is refused with 401 and nothing is stored or changed. Answers the
 * app, its secrets and the raw body the signature covered.
 */
export async function verifiedSlackRequest(db: Db, req: ApiRequest, appId: string, what: 'events' | 'interactivity') {
  const found = await slackWebhookApp(db, appId);
  if (!found) throw notFound('Slack app');
  const raw = await rawBody(req);
  const check = verifySlackSignature(req.headers, raw, [found.secrets.signingSecret]);
  if (!check.ok) {
    logger.warn({ appId, reason: check.reason }, `slack ${what}: refused an unsigned, badly signed or stale request`);
    throw new AppError(401, 'invalid_signature', 'X-Slack-Signature: missing, wrong, or older than five minutes');
  }
  return { ...found, raw };
}
