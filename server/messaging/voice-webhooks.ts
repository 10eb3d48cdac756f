import { z } from 'zod';
import type { Db } from '@/db/client';
import { eq } from 'drizzle-orm';
import { voiceCalls } from '@/db/schema';
import { twimlResponse } from '@/server/channels/twilio/twiml';
import { VoiceParams } from '@/server/channels/twilio/voice-payloads';
import { defineEndpoint } from '@/server/http/endpoint';
import { AppError, invalidFields, notFound } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { verifiedTwilio } from './provider-webhook';
import { parsePayload } from '@/server/http/validate';
import { VOICE_STEPS, type VoiceStep } from '@/server/channels/voice/urls';
import { callContext, callOfStep } from './voice-calls';
import { inboundCall, inboundStreamed, speechStep, waitStep, type StepQuery } from './voice-inbound';
import { answerStep, outboundStreamed, replyStep, statusStep } from './voice-outbound';

/*
 * Twilio's voice webhooks (spec 5, Provider webhooks): POST /channels/twilio/voice (a call reached
 * an assistant's number: the number's Voice URL) and POST /channels/twilio/voice/{step}, the URLs
 * Steward gives Twilio in its TwiML and its Calls API requests:
 *   speech  what the caller said (<Gather> action)        wait    the same question, after a holding line
 *   answer  an outbound call was picked up (AnsweredBy)    reply   what the callee said
 *   status  a call's progress (StatusCallback)            streamed  a live call's media stream ended (issue 48)
 * Each is verified before anything is read or stored, as the texts' webhooks are:
 * X-Twilio-Signature over STEWARD_PUBLIC_URL + the path and query, and the posted parameters
 * (never the Host header); unsigned or wrongly signed: 403, nothing stored; Twilio not configured
 * (or without its Auth Token): 404. The answer is TwiML (status: 204).
 */

const CallId = z.string().regex(/^[0-9a-f]{24}$/, 'must be a call id (24 hex characters)');
const Count = (max: number) => z.coerce.number().int().min(0).max(max);

export const VoiceStepQuery = z.object({
  call: CallId.optional(),
  n: Count(1_000).default(1),
  s: Count(5).default(0),
  h: Count(50).default(0),
});

const needCall = (q: z.infer<typeof VoiceStepQuery>): StepQuery => {
  if (!q.call) throw invalidFields([{ field: 'call', problem: 'is required for this step' }]);
  return { call: q.call, n: Math.max(1, q.n), s: q.s, h: q.h };
};

async function voiceStep(db: Db, req: ApiRequest, step: VoiceStep, query: z.infer<typeof VoiceStepQuery>): Promise<Response> {
  const { record } = await verifiedTwilio(req);
  const p = parsePayload(VoiceParams, record);
  if (step === 'status') {
    // A number's own status callback (inbound calls) names no call id: its CallSid does.
    const id = query.call ?? (await db.select({ id: voiceCalls.id }).from(voiceCalls).where(eq(voiceCalls.callSid, p.CallSid)))[0]?.id;
    if (!id) throw notFound('Call');
    await statusStep(db, p, { call: id });
    return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
  }
  const q = needCall(query);
  if (step === 'speech') return twimlResponse(await speechStep(db, p, q));
  if (step === 'wait') return twimlResponse(await waitStep(db, p, q));
  if (step === 'answer') return twimlResponse(await answerStep(db, p, q));
  if (step === 'streamed') return twimlResponse(await streamedStep(db, p, q));
  return twimlResponse(await replyStep(db, p, q));
}

/** The TwiML after a live call's <Connect><Stream>: the stream ended and the caller is still on the line. */
async function streamedStep(db: Db, p: VoiceParams, q: StepQuery): Promise<string> {
  const call = await callOfStep(db, q.call, p.CallSid);
  if (!call) throw notFound('Call');
  const ctx = await callContext(db, call);
  return call.direction === 'inbound' ? inboundStreamed(db, ctx) : outboundStreamed(db, ctx);
}

const logged = async (path: string, work: () => Promise<Response>) => {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof AppError)) logger.error({ err: e, path }, 'voice: a Twilio webhook could not be handled');
    throw e;
  }
};

const webhook = { tags: ['Channels'], auth: 'none' as const, raw: true, response: z.unknown(), errors: [400, 403, 404, 413] };

export const voiceWebhookEndpoints = [
  defineEndpoint({
    ...webhook,
    method: 'POST',
    path: '/channels/twilio/voice',
    operationId: 'channels.twilio.voice.call',
    summary: 'Twilio: a call to an assistant’s number (its Voice URL; signed with X-Twilio-Signature)',
    description:
      'Form-encoded, as Twilio posts it. Answers TwiML: the owner (a verified number, proven by STIR/SHAKEN attestation) talks with the assistant; someone else leaves a message when the assistant talks to strangers, or is politely refused. 403 invalid_signature when X-Twilio-Signature does not match STEWARD_PUBLIC_URL + this path and the parameters (nothing is stored); 404 while Twilio is not configured.',
    handle: ({ db, req }) =>
      logged('/channels/twilio/voice', async () => {
        const { record } = await verifiedTwilio(req);
        return twimlResponse(await inboundCall(db, parsePayload(VoiceParams, record)));
      }),
  }),
  defineEndpoint({
    ...webhook,
    method: 'POST',
    path: '/channels/twilio/voice/{step}',
    operationId: 'channels.twilio.voice.step',
    summary: 'Twilio: a step of a call (speech results, an answered outbound call, call status), at the URLs Steward gave Twilio (signed with X-Twilio-Signature)',
    description: `step: ${VOICE_STEPS.join(', ')}. The query names Steward's call (call) and the exchange (n). Answers TwiML (status: 204). 403 / 404 as for /channels/twilio/voice.`,
    params: z.object({ step: z.enum(VOICE_STEPS, { message: `must be one of ${VOICE_STEPS.join(', ')}` }) }),
    query: VoiceStepQuery,
    handle: ({ db, req, params, query }) => logged(`/channels/twilio/voice/${params.step}`, () => voiceStep(db, req, params.step, query)),
  }),
];
