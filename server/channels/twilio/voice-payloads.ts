import { z } from 'zod';

/*
 * What Twilio posts to the voice webhooks and answers from its Calls API (Twilio's "TwiML Voice:
 * Twilio's request to your application", "<Gather>", "Call resource" and "Answering machine
 * detection" pages), checked with Zod. Unknown parameters are kept (they are signed like the
 * rest) and ignored.
 */

const CallSid = z.string().regex(/^CA[0-9a-fA-F]{32}$/, 'must be a Twilio call sid');
/** A caller can be anonymous, a SIP or client address: kept as given, and only an E.164 number can name a person. */
const Party = z.string().max(256);

export const CALL_STATUSES = ['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled'] as const;

export const VoiceParams = z
  .object({
    CallSid,
    AccountSid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio AC sid'),
    From: Party.default(''),
    To: Party.default(''),
    CallStatus: z.enum(CALL_STATUSES).optional(),
    Direction: z.string().max(40).optional(),
    /** <Gather input="speech">: what the person said, and how sure the recogniser is (0 to 1). */
    SpeechResult: z.string().max(10_000).optional(),
    Confidence: z.coerce.number().min(0).max(1).optional(),
    /** Answering machine detection on an outbound call. */
    AnsweredBy: z.string().max(40).optional(),
    CallDuration: z.coerce.number().int().min(0).optional(),
    /** STIR/SHAKEN verification of the caller's number (inbound), e.g. TN-Validation-Passed-A. */
    StirVerstat: z.string().max(64).optional(),
    ErrorCode: z.string().max(10).optional(),
  })
  .loose();
export type VoiceParams = z.infer<typeof VoiceParams>;

export const CallAnswer = z.object({ sid: CallSid, status: z.string() }).loose();

/** A Call resource as GET .../Calls/{sid}.json answers it: its status, duration (seconds, a string) and AnsweredBy. */
export const CallStatusAnswer = z.object({ sid: CallSid, status: z.string(), duration: z.union([z.string(), z.number()]).nullish(), answered_by: z.string().nullish() }).loose();
