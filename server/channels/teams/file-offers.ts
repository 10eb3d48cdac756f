import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { teamsFileOffers, type TeamsConversationRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';
import { logger } from '@/server/logger';
import type { OutboundFile } from '../adapter';
import type { Delivery } from '../message';
import { providerRequest } from '../slack/provider-http';
import type { Activity } from './activity';
import type { TeamsBotConfig } from './config';
import { sendToConversation, updateActivity } from './connector';
import { MAX_TEAMS_FILE_BYTES, sharedUrlProblem } from './file-download';

/*
 * Files the assistant sends on Teams (issue 41). A bot's file reaches a person's 1:1 chat only
 * through a file consent card ("Send and receive files using bot"): the bot offers the file, the
 * person allows it, Teams answers with an upload URL in their OneDrive (invoke `fileConsent/invoke`),
 * the bot uploads the bytes there and posts a file info card that opens it. So a send with files
 * posts its words, then one consent card per file, and keeps each file's bytes (teams_file_offers)
 * until the person answers; the bytes are dropped once uploaded, declined or failed.
 *
 * The upload goes only to a host STEWARD_TEAMS_FILE_HOSTS names (https; http only for a loopback
 * host named there), as a shared file's download does, under the outbound address rule: a verified
 * activity names the URL, but the bytes never go anywhere Teams does not keep files.
 */

export const FILE_CONSENT = 'application/vnd.microsoft.teams.card.file.consent';
export const FILE_INFO = 'application/vnd.microsoft.teams.card.file.info';

/** The consent card's contexts carry the offer's id and nothing else. */
const OfferContext = z.object({ offer: z.string().min(1).max(100) });

/** invoke `fileConsent/invoke`: the person's answer to a consent card, with where to upload when they allow it. */
export const FileConsentInvoke = z
  .object({
    type: z.literal('fileUpload'),
    action: z.enum(['accept', 'decline']),
    context: OfferContext,
    uploadInfo: z.object({ contentUrl: z.string().url().max(8000), name: z.string().min(1).max(500), uploadUrl: z.string().url().max(8000), uniqueId: z.string().max(200).optional(), fileType: z.string().max(100).optional() }).loose().optional(),
  })
  .loose();

export const isFileConsent = (a: Pick<Activity, 'type' | 'name'>) => a.type === 'invoke' && a.name === 'fileConsent/invoke';

/** Why these files cannot be offered at all, before anything is posted; null when they can. */
export function offerProblem(files: OutboundFile[]): string | null {
  const big = files.find((f) => f.content.length > MAX_TEAMS_FILE_BYTES);
  return big ? `${big.filename} is larger than the ${MAX_TEAMS_FILE_BYTES / (1024 * 1024)} MB Steward sends on Teams: nothing was sent` : null;
}

/**
 * Offers one file in the conversation: its bytes kept, then its consent card posted. A card the
 * Connector refused leaves no offer behind; one whose answer was lost keeps it (the person may
 * still allow it).
 */
export async function offerFile(db: Db, cfg: TeamsBotConfig, conversation: TeamsConversationRow, file: OutboundFile): Promise<Delivery> {
  const id = newId();
  await db.insert(teamsFileOffers).values({
    id,
    accountId: conversation.accountId,
    conversationId: conversation.conversationId,
    aadObjectId: conversation.aadObjectId,
    filename: file.filename,
    contentType: file.contentType,
    size: file.content.length,
    content: file.content,
  });
  const d = await sendToConversation(cfg, conversation.serviceUrl, conversation.conversationId, {
    type: 'message',
    attachments: [
      {
        contentType: FILE_CONSENT,
        name: file.filename,
        content: { description: `${file.filename}, from your assistant`, sizeInBytes: file.content.length, acceptContext: { offer: id }, declineContext: { offer: id } },
      },
    ],
  });
  if (d.state === 'failed') await db.delete(teamsFileOffers).where(eq(teamsFileOffers.id, id));
  return d;
}

type Answer = z.infer<typeof FileConsentInvoke>;

/**
 * The person's answer to a consent card, from the verified activity, once the webhook has answered:
 * the offer must be one made in this conversation to this person, still waiting, and is claimed
 * first (a redelivered answer finds it taken and does nothing). Allowed: the bytes are uploaded
 * and a card that opens the file is posted; declined: the bytes are dropped. Either way the
 * consent card is replaced by a line saying what happened.
 */
export async function answerConsent(db: Db, cfg: TeamsBotConfig, accountId: string, activity: Activity, answer: Answer): Promise<void> {
  const aad = activity.from.aadObjectId?.toLowerCase() ?? '';
  const [offer] = await db
    .update(teamsFileOffers)
    .set(answer.action === 'accept' ? { state: 'uploading', updatedAt: sql`now()` } : { state: 'declined', content: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(teamsFileOffers.id, answer.context.offer),
        eq(teamsFileOffers.accountId, accountId),
        eq(teamsFileOffers.conversationId, activity.conversation.id),
        sql`lower(${teamsFileOffers.aadObjectId}) = ${aad}`,
        eq(teamsFileOffers.state, 'offered'),
      ),
    )
    .returning();
  if (!offer) return void logger.info({ offer: answer.context.offer }, 'teams: a consent answer for no waiting offer of this person (answered already, or not ours)');
  const card = activity.replyToId ?? null;
  const closeCard = (text: string) => (card ? updateActivity(cfg, activity.serviceUrl, activity.conversation.id, card, { type: 'message', text, textFormat: 'plain' }).then(() => undefined) : Promise.resolve());
  if (answer.action === 'decline') return closeCard(`${offer.filename} was not shared: you declined it.`);
  const problem = await upload(cfg, offer.content, offer.contentType, answer.uploadInfo);
  await db
    .update(teamsFileOffers)
    .set({ state: problem ? 'failed' : 'uploaded', reason: problem, content: null, updatedAt: sql`now()` })
    .where(eq(teamsFileOffers.id, offer.id));
  if (problem) {
    logger.warn({ offerId: offer.id, problem }, 'teams: an allowed file could not be uploaded');
    await closeCard(`${offer.filename} could not be put in your OneDrive (${problem}).`);
    return;
  }
  const info = answer.uploadInfo!;
  await sendToConversation(cfg, activity.serviceUrl, activity.conversation.id, {
    type: 'message',
    attachments: [{ contentType: FILE_INFO, name: info.name, contentUrl: info.contentUrl, content: { uniqueId: info.uniqueId, fileType: info.fileType } }],
  });
  await closeCard(`${offer.filename} is in your OneDrive.`);
}

/** How long an offer waits for its answer, and an upload for its end, before its bytes are dropped. */
export const OFFER_DAYS = 7;
const UPLOAD_STUCK_MINUTES = 30;

/**
 * Drops the bytes of offers nobody answered within OFFER_DAYS, and of uploads a stopped process
 * left unfinished: each ends `failed` with the reason (an Allow that comes later finds nothing to take).
 */
export async function expireFileOffers(db: Db): Promise<number> {
  const ended = await db
    .update(teamsFileOffers)
    .set({
      state: 'failed',
      content: null,
      reason: sql`case when ${teamsFileOffers.state} = 'offered' then ${`not answered within ${OFFER_DAYS} days`} else 'the upload did not finish' end`,
      updatedAt: sql`now()`,
    })
    .where(
      sql`(${teamsFileOffers.state} = 'offered' and ${teamsFileOffers.createdAt} < now() - make_interval(days => ${OFFER_DAYS}))
        or (${teamsFileOffers.state} = 'uploading' and ${teamsFileOffers.updatedAt} < now() - make_interval(mins => ${UPLOAD_STUCK_MINUTES}))`,
    )
    .returning({ id: teamsFileOffers.id });
  return ended.length;
}

/** Puts the bytes at the upload URL Teams gave (one request: OneDrive takes up to 60 MB a fragment); the problem, or null. */
async function upload(cfg: TeamsBotConfig, content: Buffer | null, contentType: string, info: Answer['uploadInfo']): Promise<string | null> {
  if (!content) return 'its bytes are no longer kept';
  if (!info) return 'Teams gave no place to upload it';
  let url: URL;
  try {
    url = new URL(info.uploadUrl);
  } catch {
    return 'the upload address is not a URL';
  }
  const problem = sharedUrlProblem(cfg.fileHosts, url);
  if (problem) return `not uploaded: ${problem}`;
  try {
    const a = await providerRequest('OneDrive', url, {
      method: 'PUT',
      headers: { 'Content-Type': contentType, ...(content.length ? { 'Content-Range': `bytes 0-${content.length - 1}/${content.length}` } : {}) },
      body: content,
      timeoutMs: TOTAL_MS.media,
    });
    return a.status >= 200 && a.status < 300 ? null : `the upload was refused (HTTP ${a.status})`;
  } catch (e) {
    return `the upload failed: ${(e as Error).message}`;
  }
}
