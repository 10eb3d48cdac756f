import { basic } from './api';
import type { TwilioConfig } from './config';
import { jsonOf, providerRequest } from './http';
import { ErrorAnswer } from './payloads';
import { CallAnswer, CallStatusAnswer } from './voice-payloads';

/*
 * Twilio's Calls API (POST /2010-04-01/Accounts/{sid}/Calls.json, form-encoded, HTTP basic auth):
 * an outbound call from the assistant's number. Twilio requests `url` when the call is answered
 * (after answering machine detection: AnsweredBy), and posts the call's progress to
 * `statusCallback`. The answer says whether the call was created (its CallSid), refused (nothing
 * was dialled), or is not known (the request may have reached Twilio): a call whose answer was
 * lost is never placed again.
 */

export type CallRequest = {
  from: string;
  to: string;
  url: string;
  statusCallback: string;
  /** Seconds to let it ring before `no-answer` (Twilio: 5 to 600, default 60). */
  timeoutSec?: number;
  /** Wait for a voicemail greeting's end before asking `url` (AnsweredBy machine_end_*), so a message left on it is heard whole. */
  machineDetection?: 'Enable' | 'DetectMessageEnd' | null;
};

export type CallPlaced =
  | { ok: true; sid: string; status: string }
  | { ok: false; definite: true; code: number | null; reason: string }
  | { ok: false; definite: false; reason: string };

export async function createCall(c: TwilioConfig, call: CallRequest): Promise<CallPlaced> {
  const form = new URLSearchParams({ To: call.to, From: call.from, Url: call.url, Method: 'POST', StatusCallback: call.statusCallback, StatusCallbackMethod: 'POST' });
  for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
  form.set('Timeout', String(call.timeoutSec ?? 30));
  if (call.machineDetection) form.set('MachineDetection', call.machineDetection);
  const a = await providerRequest({
    method: 'POST',
    url: new URL(`${c.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(c.accountSid)}/Calls.json`),
    headers: { Authorization: basic(c), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: form.toString(),
  });
  if (a.status === null) {
    return a.reached
      ? { ok: false, definite: false, reason: `Twilio's answer was lost (${a.error}): the call may or may not have been placed` }
      : { ok: false, definite: true, code: null, reason: `Twilio could not be reached: ${a.error}` };
  }
  if (a.status === 200 || a.status === 201) {
    const created = CallAnswer.safeParse(jsonOf(a));
    if (created.success) return { ok: true, sid: created.data.sid, status: created.data.status };
    return { ok: false, definite: false, reason: 'Twilio answered without a call sid: the call may or may not have been placed' };
  }
  if (a.status >= 500) return { ok: false, definite: false, reason: `Twilio answered ${a.status}: the call may or may not have been placed` };
  const e = ErrorAnswer.safeParse(jsonOf(a));
  const code = e.success ? (e.data.code ?? null) : null;
  const message = e.success && e.data.message ? e.data.message.slice(0, 300) : `HTTP ${a.status}`;
  return { ok: false, definite: true, code, reason: `Twilio refused the call${code ? ` (${code})` : ''}: ${message}` };
}

export type CallFetched =
  | { ok: true; status: string; durationSec: number | null; answeredBy: string | null }
  | { ok: false; gone: boolean; reason: string };

/**
 * GET /2010-04-01/Accounts/{sid}/Calls/{CallSid}.json: a call's status as Twilio knows it (the
 * sweep asks about calls whose final status callback never came). `gone`: Twilio has no such call.
 */
export async function fetchCall(c: TwilioConfig, callSid: string): Promise<CallFetched> {
  const a = await providerRequest({
    method: 'GET',
    url: new URL(`${c.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(c.accountSid)}/Calls/${encodeURIComponent(callSid)}.json`),
    headers: { Authorization: basic(c), Accept: 'application/json' },
  });
  if (a.status === null) return { ok: false, gone: false, reason: `Twilio could not be reached: ${a.error}` };
  if (a.status === 404) return { ok: false, gone: true, reason: 'Twilio has no such call' };
  if (a.status !== 200) return { ok: false, gone: false, reason: `Twilio answered ${a.status}` };
  const got = CallStatusAnswer.safeParse(jsonOf(a));
  if (!got.success) return { ok: false, gone: false, reason: 'Twilio answered without a call status' };
  const duration = got.data.duration === null || got.data.duration === undefined ? null : Number(got.data.duration);
  return { ok: true, status: got.data.status, durationSec: Number.isFinite(duration) ? duration : null, answeredBy: got.data.answered_by ?? null };
}
