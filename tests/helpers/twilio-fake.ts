import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { twilioNumbers } from './twilio-fake-numbers';
import { parseTwiml, type TwimlVerb } from './twiml-parse';

/**
 * A loopback stand-in for Twilio's REST API (2010-04-01) and its webhooks, speaking Twilio's wire
 * format: form-encoded requests with HTTP basic auth, JSON answers and Twilio's error shape
 * (`{code, message, more_info, status}`). It records what would have been sent, never delivers
 * anything, and calls Steward's webhooks signed exactly as Twilio signs them (X-Twilio-Signature:
 * HMAC-SHA1 with the Auth Token over the URL and the sorted parameters, base64).
 *
 *   Messages: POST .../Messages.json (create), GET .../Messages/{sid}.json (fetch); after a create
 *   the status callback is posted (`sent`, then `delivered`, or `failed`/`undelivered` with the
 *   ErrorCode a test asked for). STOP from a number makes later creates to it answer 21610.
 *   Media:    GET .../Messages/{sid}/Media/{sid} serves what `inbound({media})` attached.
 *   Numbers:  (twilio-fake-numbers.ts) GET .../AvailablePhoneNumbers/{country}/Local.json, POST .../IncomingPhoneNumbers.json, GET
 *             .../IncomingPhoneNumbers.json (by FriendlyName or PhoneNumber).
 *   Calls:    POST .../Calls.json (create) places a call played by a scripted callee (`state.callScripts`,
 *             one per call: no-answer, busy, failed, or answered by a person or a machine who says
 *             the given lines): its status callbacks (initiated, ringing, in-progress, then the final
 *             one), the answer URL (with AnsweredBy), then the TwiML followed as Twilio does.
 *   Voice:    `call({from, to, says})` is a scripted caller phoning a number: the number's Voice URL,
 *             then its TwiML: <Say> is heard, <Gather input="speech"> posts the next line as
 *             SpeechResult to its action, <Redirect> is followed, <Hangup>/<Reject> end the call
 *             (and so does running out of lines: the caller hangs up).
 */

/** What one call sounded like: every line Twilio would have spoken, what was asked of Steward, and how it ended. */
export type Conversation = {
  heard: string[];
  twiml: string[];
  requests: Array<{ url: string; status: number; params: Record<string, string> }>;
  verbs: TwimlVerb[][];
  /** Media streams the TwiML opened (<Connect><Stream>). */
  streams: Array<{ url: string; parameters: Record<string, string> }>;
  ended: 'hangup' | 'rejected' | 'caller_hung_up' | 'end_of_twiml' | 'http_error' | 'too_long';
};

/** One outbound call's callee, as a test scripts it. */
export type CallScript =
  | { result: 'no-answer' | 'busy' | 'failed' }
  | { result?: 'answered'; answeredBy?: 'human' | 'machine_end_beep' | 'machine_end_silence' | 'fax' | 'unknown'; says?: string[]; durationSec?: number };

export type PlacedCall = {
  sid: string;
  to: string;
  from: string;
  url: string;
  statusCallback: string | null;
  params: Record<string, string>;
  statusCallbackEvents: string[];
  conversation: Conversation | null;
  finished: boolean;
  statuses: Array<{ status: string; answer: number }>;
  /** How the call ended, as GET Calls/{sid}.json tells it (null while it is going on). */
  finalStatus?: { status: string; duration: number; answeredBy: string } | null;
};

export type SentMessage = {
  sid: string;
  to: string;
  from: string;
  body: string | null;
  contentSid: string | null;
  contentVariables: string | null;
  statusCallback: string | null;
  params: Record<string, string>;
  /** Every MediaUrl (a repeated parameter), in order. */
  mediaUrls: string[];
  /** What Twilio got when it fetched each MediaUrl after accepting the message (set once all are fetched). */
  fetchedMedia?: Array<{ url: string; status: number; contentType: string | null; bytes: Buffer }>;
};

/**
 * Twilio's signing, written here on its own (not Steward's validator): the URL, then each parameter
 * name and value, names in sorted order; HMAC-SHA1 with the Auth Token; base64.
 */
export function twilioSignature(authToken: string, url: string, params: Array<[string, string]>): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1));
  return createHmac('sha1', authToken)
    .update(url + sorted.map(([k, v]) => k + v).join(''))
    .digest('base64');
}

type Options = { accountSid?: string; authToken?: string; apiKey?: string; apiSecret?: string };

const hex = (n: number) => randomBytes(n).toString('hex');
const sid = (prefix: string) => `${prefix}${hex(16)}`;

export async function startTwilioFake(opts: Options = {}) {
  const accountSid = opts.accountSid ?? `AC${hex(16)}`;
  const authToken = opts.authToken ?? hex(16);
  const sent: SentMessage[] = [];
  const calls: PlacedCall[] = [];
  /** Inbound calls' final statuses, as GET Calls/{sid}.json tells them. */
  const inboundCalls = new Map<string, { status: string; duration: number; answeredBy: string | null }>();
  const media = new Map<string, { bytes: Buffer; contentType: string }>();
  const optedOut = new Set<string>();
  const state = {
    /** Numbers AvailablePhoneNumbers offers. */
    available: ['+14155550101', '+14155550102'],
    /**
     * The next create answers this Twilio error (then it is cleared); with `match`, the next create
     * to that number (and with that body) only, so a chat reply sent meanwhile does not take it.
     */
    refuseNext: null as null | { status: number; code: number; message: string; match?: { to?: string; body?: string } },
    /** The next created message's callbacks end in this status and error code. */
    failNext: null as null | { status: 'failed' | 'undelivered'; code: string },
    /** Status callbacks are posted after this delay (Twilio's come after its answer). */
    callbackDelayMs: 30,
    /** Where inbound texts to a number not bought here are posted (its SmsUrl in Twilio's console). */
    smsUrl: null as string | null,
    callbacks: [] as Array<{ url: string; status: number }>,
    /** Where calls to a number not bought here are posted (its Voice URL in Twilio's console). */
    voiceUrl: null as string | null,
    /** The callees of the next outbound calls, in order (none left: a person answers and says nothing). */
    callScripts: [] as CallScript[],
    /** Between a call's progress steps (Twilio's come after its answer to the create). */
    callStepDelayMs: 30,
    /** The next call is placed, but the answer to its create is lost (the connection drops). */
    loseNextCallAnswer: false,
    /**
     * What plays a <Connect><Stream> (a media stream stand-in, tests/helpers/twilio-media-fake.ts):
     * resolves when the stream ends with the caller still on the line (Twilio then goes on with the
     * TwiML after <Connect>), or with 'hung_up' when the caller hung up during it. Without one the
     * stream is not opened and the call ends there.
     */
    onStream: null as null | ((stream: { url: string; parameters: Record<string, string>; callSid: string; direction: 'inbound' | 'outbound' }) => Promise<'ended' | 'hung_up'>),
    /** The next call's final status callback is never posted (the sweep must find it); GET Calls/{sid}.json still answers it. */
    dropNextFinalStatus: false,
  };

  const authorized = (req: IncomingMessage) => {
    const header = req.headers.authorization ?? '';
    const [user, pass] = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8').split(':');
    return (user === accountSid && pass === authToken) || (opts.apiKey !== undefined && user === opts.apiKey && pass === opts.apiSecret);
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, code: number, message: string) =>
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
  // The account's numbers: for sale, bought, listed (twilio-fake-numbers.ts).
  const numbers = twilioNumbers({ accountSid, state, json, error, sid });
  const bought = numbers.bought;

  /** POSTs form parameters to a Steward webhook, signed as Twilio signs them. */
  async function post(url: string, params: Record<string, string>, signature?: string | null) {
    const form = new URLSearchParams(params);
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'TwilioProxy/1.1', 'I-Twilio-Idempotency-Token': hex(8) };
    const sig = signature === undefined ? twilioSignature(authToken, url, Object.entries(params)) : signature;
    if (sig !== null) headers['X-Twilio-Signature'] = sig;
    const res = await fetch(url, { method: 'POST', headers, body: form.toString() });
    return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') };
  }

  function scheduleCallbacks(m: SentMessage) {
    if (!m.statusCallback) return;
    const fail = state.failNext;
    state.failNext = null;
    const steps: Array<{ status: string; code?: string }> = fail ? [{ status: 'sent' }, { status: fail.status, code: fail.code }] : [{ status: 'sent' }, { status: 'delivered' }];
    let chain = new Promise((r) => setTimeout(r, state.callbackDelayMs));
    for (const step of steps) {
      chain = chain.then(async () => {
        const params: Record<string, string> = {
          AccountSid: accountSid,
          ApiVersion: '2010-04-01',
          MessageSid: m.sid,
          SmsSid: m.sid,
          MessageStatus: step.status,
          SmsStatus: step.status,
          From: m.from,
          To: m.to,
          ...(step.code ? { ErrorCode: step.code } : {}),
        };
        const r = await post(m.statusCallback!, params).catch(() => ({ status: 0 }));
        state.callbacks.push({ url: m.statusCallback!, status: r.status });
      });
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const form = Object.fromEntries(raw);
    const prefix = `/2010-04-01/Accounts/${accountSid}/`;
    if (!url.pathname.startsWith(prefix)) return error(res, 404, 20404, 'The requested resource was not found');
    if (!authorized(req)) return error(res, 401, 20003, 'Authenticate');
    const rest = url.pathname.slice(prefix.length);

    if (req.method === 'POST' && rest === 'Messages.json') {
      if (!form.To) return error(res, 400, 21604, "A 'To' phone number is required.");
      if (!form.From && !form.MessagingServiceSid) return error(res, 400, 21603, "A 'From' phone number is required.");
      if (!form.Body && !form.ContentSid && !form.MediaUrl) return error(res, 400, 21602, 'Message body is required.');
      const only = state.refuseNext?.match;
      if (state.refuseNext && (!only || ((!only.to || form.To.replace(/^whatsapp:/, '') === only.to) && (only.body === undefined || form.Body === only.body)))) {
        const r = state.refuseNext;
        state.refuseNext = null;
        return error(res, r.status, r.code, r.message);
      }
      const from = form.From ?? form.MessagingServiceSid!;
      if (optedOut.has(`${from.replace(/^whatsapp:/, '')}|${form.To.replace(/^whatsapp:/, '')}`)) {
        return error(res, 400, 21610, "Attempt to send to unsubscribed recipient");
      }
      const m: SentMessage = {
        sid: sid('SM'),
        to: form.To,
        from,
        body: form.Body ?? null,
        contentSid: form.ContentSid ?? null,
        contentVariables: form.ContentVariables ?? null,
        statusCallback: form.StatusCallback ?? null,
        params: form,
        mediaUrls: raw.getAll('MediaUrl'),
      };
      sent.push(m);
      // Twilio fetches each media URL itself once it has taken the message, without credentials.
      if (m.mediaUrls.length)
        void Promise.all(
          m.mediaUrls.map(async (u) => {
            const got = await fetch(u).catch(() => null);
            return { url: u, status: got?.status ?? 0, contentType: got?.headers.get('content-type') ?? null, bytes: got ? Buffer.from(await got.arrayBuffer()) : Buffer.alloc(0) };
          }),
        ).then((all) => (m.fetchedMedia = all));
      json(res, 201, { sid: m.sid, account_sid: accountSid, to: m.to, from: m.from, body: m.body, status: 'queued', direction: 'outbound-api', api_version: '2010-04-01', error_code: null, error_message: null, num_media: String(m.mediaUrls.length), num_segments: '1' });
      scheduleCallbacks(m);
      return;
    }
    if (req.method === 'POST' && rest === 'Calls.json') {
      const all = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (!form.To) return error(res, 400, 21201, "No 'To' number is specified");
      if (!form.From) return error(res, 400, 21213, "No 'From' number is specified");
      if (!form.Url && !form.Twiml) return error(res, 400, 21205, 'Url parameter is required.');
      if (state.refuseNext) {
        const r = state.refuseNext;
        state.refuseNext = null;
        return error(res, r.status, r.code, r.message);
      }
      const call: PlacedCall = {
        sid: sid('CA'),
        to: form.To,
        from: form.From,
        url: form.Url!,
        statusCallback: form.StatusCallback ?? null,
        params: form,
        statusCallbackEvents: all.getAll('StatusCallbackEvent'),
        conversation: null,
        finished: false,
        statuses: [],
      };
      calls.push(call);
      if (state.loseNextCallAnswer) {
        state.loseNextCallAnswer = false;
        res.socket?.destroy();
        void runOutbound(call).catch(() => (call.finished = true));
        return;
      }
      json(res, 201, { sid: call.sid, account_sid: accountSid, to: call.to, from: call.from, status: 'queued', direction: 'outbound-api', api_version: '2010-04-01' });
      void runOutbound(call).catch(() => (call.finished = true));
      return;
    }
    const fetchedCall = /^Calls\/(CA[0-9a-f]{32})\.json$/.exec(rest);
    if (req.method === 'GET' && fetchedCall) {
      // The Call resource: its status as Twilio knows it (in-progress until it ended).
      const c = calls.find((x) => x.sid === fetchedCall[1]) ?? null;
      const known = c ? null : inboundCalls.get(fetchedCall[1]!);
      if (!c && !known) return error(res, 404, 20404, 'The requested resource was not found');
      const fin = c ? c.finalStatus : known;
      return json(res, 200, {
        sid: fetchedCall[1],
        account_sid: accountSid,
        to: c?.to ?? null,
        from: c?.from ?? null,
        status: fin?.status ?? 'in-progress',
        duration: fin ? String(fin.duration) : null,
        answered_by: fin?.answeredBy ?? null,
        direction: c ? 'outbound-api' : 'inbound',
        api_version: '2010-04-01',
      });
    }
    const fetched = /^Messages\/([A-Za-z0-9]+)\.json$/.exec(rest);
    if (req.method === 'GET' && fetched) {
      const m = sent.find((x) => x.sid === fetched[1]);
      return m ? json(res, 200, { sid: m.sid, to: m.to, from: m.from, body: m.body, status: 'delivered' }) : error(res, 404, 20404, 'The requested resource was not found');
    }
    const mediaPath = /^Messages\/[A-Za-z0-9]+\/Media\/([A-Za-z0-9]+)$/.exec(rest);
    if (req.method === 'GET' && mediaPath) {
      const item = media.get(mediaPath[1]!);
      if (!item) return error(res, 404, 20404, 'The requested resource was not found');
      res.writeHead(200, { 'Content-Type': item.contentType, 'Content-Length': String(item.bytes.byteLength) });
      return res.end(item.bytes);
    }
    if (numbers.handle(req.method ?? '', rest, url, form, res)) return;
    return error(res, 404, 20404, 'The requested resource was not found');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Follows a call's TwiML from `url` as Twilio does, the caller saying `lines` one per <Gather>. */
  async function converse(url: string, base: Record<string, string>, first: Record<string, string>, lines: string[]): Promise<Conversation> {
    const c: Conversation = { heard: [], twiml: [], requests: [], verbs: [], streams: [], ended: 'too_long' };
    const left = [...lines];
    let next: { url: string; params: Record<string, string> } | null = { url, params: { ...base, ...first } };
    for (let i = 0; next && i < 40; i++) {
      const r = await post(next.url, next.params);
      c.requests.push({ url: next.url, status: r.status, params: next.params });
      if (r.status !== 200) {
        c.ended = 'http_error';
        return c;
      }
      c.twiml.push(r.text);
      const verbs = parseTwiml(r.text);
      c.verbs.push(verbs);
      next = null;
      for (const v of verbs) {
        if (v.verb === 'Say') c.heard.push(v.text);
        else if (v.verb === 'Gather') {
          c.heard.push(...v.say);
          const said = left.shift();
          // Out of lines: the caller hangs up while the assistant listens.
          if (said === undefined) {
            c.ended = 'caller_hung_up';
            return c;
          }
          next = { url: v.action, params: { ...base, ...(said ? { SpeechResult: said, Confidence: '0.93' } : {}) } };
          break;
        } else if (v.verb === 'Redirect') {
          next = { url: v.url, params: base };
          break;
        } else if (v.verb === 'Stream') {
          c.streams.push({ url: v.url, parameters: v.parameters });
          if (!state.onStream) {
            c.ended = 'end_of_twiml';
            return c;
          }
          const how = await state.onStream({ url: v.url, parameters: v.parameters, callSid: base.CallSid ?? '', direction: base.Direction === 'inbound' ? 'inbound' : 'outbound' });
          if (how === 'hung_up') {
            c.ended = 'caller_hung_up';
            return c;
          }
        } else if (v.verb === 'Hangup' || v.verb === 'Reject') {
          c.ended = v.verb === 'Hangup' ? 'hangup' : 'rejected';
          return c;
        }
      }
      if (!next) c.ended = 'end_of_twiml';
    }
    return c;
  }

  async function runOutbound(call: PlacedCall) {
    const script = state.callScripts.shift() ?? { answeredBy: 'human' as const, says: [] };
    const base = { AccountSid: accountSid, ApiVersion: '2010-04-01', CallSid: call.sid, From: call.from, To: call.to, Direction: 'outbound-api' };
    const status = async (callStatus: string, extra: Record<string, string> = {}) => {
      await pause(state.callStepDelayMs);
      if (!call.statusCallback) return;
      const r = await post(call.statusCallback, { ...base, CallStatus: callStatus, ...extra }).catch(() => ({ status: 0 }));
      call.statuses.push({ status: callStatus, answer: r.status });
    };
    await status('initiated');
    await status('ringing');
    if (script.result === 'no-answer' || script.result === 'busy' || script.result === 'failed') {
      await status(script.result, { CallDuration: '0', ...(script.result === 'failed' ? { ErrorCode: '31005' } : {}) });
      call.finished = true;
      return;
    }
    const answered = script as Extract<CallScript, { answeredBy?: string }>;
    await status('in-progress');
    call.conversation = await converse(call.url, { ...base, CallStatus: 'in-progress' }, { AnsweredBy: answered.answeredBy ?? 'human' }, answered.says ?? []);
    call.finalStatus = { status: 'completed', duration: answered.durationSec ?? 14, answeredBy: answered.answeredBy ?? 'human' };
    if (state.dropNextFinalStatus) state.dropNextFinalStatus = false;
    else await status('completed', { CallDuration: String(answered.durationSec ?? 14) });
    call.finished = true;
  }

  /**
   * A person phones one of the numbers: its Voice URL (bought here) or `state.voiceUrl`, then the
   * TwiML followed. `stir`: Twilio's StirVerstat (full attestation by default; null: none).
   */
  async function placeInboundCall(o: { from: string; to: string; says?: string[]; stir?: string | null; callSid?: string; extra?: Record<string, string> }) {
    const url = voiceUrlFor(o.to);
    if (!url) throw new Error(`no Voice URL for ${o.to}: set fake.state.voiceUrl`);
    const callSid = o.callSid ?? sid('CA');
    const stir = o.stir === undefined ? 'TN-Validation-Passed-A' : o.stir;
    const base: Record<string, string> = {
      AccountSid: accountSid,
      ApiVersion: '2010-04-01',
      CallSid: callSid,
      CallStatus: 'in-progress',
      Direction: 'inbound',
      From: o.from,
      To: o.to,
      Caller: o.from,
      Called: o.to,
      ...(stir ? { StirVerstat: stir } : {}),
      ...(o.extra ?? {}),
    };
    const conversation = await converse(url, base, { CallStatus: 'ringing' }, o.says ?? []);
    const statusUrl = bought.find((b) => b.phoneNumber === o.to)?.voiceStatusUrl ?? null;
    inboundCalls.set(callSid, { status: 'completed', duration: 20, answeredBy: null });
    if (statusUrl) await post(statusUrl, { ...base, CallStatus: 'completed', CallDuration: '20' });
    return { callSid, ...conversation };
  }

  /** Where Twilio would post a call to this number: its VoiceUrl (bought here) or the console's. */
  const voiceUrlFor = (number: string) => bought.find((b) => b.phoneNumber === number)?.voiceUrl ?? state.voiceUrl;

  /** Where Twilio would post a text to this number: its SmsUrl (bought here) or the console's. */
  const smsUrlFor = (number: string) => bought.find((b) => b.phoneNumber === number)?.smsUrl ?? state.smsUrl;

  /**
   * A person texts one of the numbers: Twilio's inbound webhook, signed (or with `signature`:
   * another value, or null for none). STOP/START through it also change the fake's own opt-out
   * list, as Twilio's does.
   */
  async function inbound(text: { from: string; to: string; body: string; whatsapp?: boolean; media?: Array<{ bytes: Buffer; contentType: string }>; messageSid?: string; extra?: Record<string, string> }, signature?: string | null) {
    const url = smsUrlFor(text.to);
    if (!url) throw new Error(`no SmsUrl for ${text.to}: set fake.state.smsUrl`);
    const messageSid = text.messageSid ?? sid(text.media?.length ? 'MM' : 'SM');
    const prefix = text.whatsapp ? 'whatsapp:' : '';
    const params: Record<string, string> = {
      ToCountry: 'US',
      SmsMessageSid: messageSid,
      NumMedia: String(text.media?.length ?? 0),
      SmsSid: messageSid,
      SmsStatus: 'received',
      Body: text.body,
      To: `${prefix}${text.to}`,
      NumSegments: '1',
      MessageSid: messageSid,
      AccountSid: accountSid,
      From: `${prefix}${text.from}`,
      ApiVersion: '2010-04-01',
      ...(text.whatsapp ? { ProfileName: 'Fake Person', WaId: text.from.slice(1) } : {}),
      ...(text.extra ?? {}),
    };
    for (const [i, m] of (text.media ?? []).entries()) {
      const mediaSid = sid('ME');
      media.set(mediaSid, m);
      params[`MediaContentType${i}`] = m.contentType;
      params[`MediaUrl${i}`] = `${baseUrl}/2010-04-01/Accounts/${accountSid}/Messages/${messageSid}/Media/${mediaSid}`;
    }
    const word = text.body.trim().toUpperCase();
    if (['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'].includes(word)) optedOut.add(`${text.to}|${text.from}`);
    if (['START', 'YES', 'UNSTOP'].includes(word)) optedOut.delete(`${text.to}|${text.from}`);
    return { messageSid, params, url, ...(await post(url, params, signature)) };
  }

  return {
    accountSid,
    authToken,
    baseUrl,
    sent,
    bought,
    state,
    optedOut,
    inbound,
    post,
    calls,
    call: placeInboundCall,
    /** Calls placed to a number. */
    callsTo: (number: string) => calls.filter((c) => c.to === number),
    sign: (url: string, params: Record<string, string>) => twilioSignature(authToken, url, Object.entries(params)),
    /** The messages sent to a number (SMS or WhatsApp). */
    sentTo: (number: string) => sent.filter((m) => m.to.replace(/^whatsapp:/, '') === number),
    /** Environment that points Steward at this fake. */
    env: () => ({ TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, STEWARD_TWILIO_API_URL: baseUrl, STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.0/8' }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type TwilioFake = Awaited<ReturnType<typeof startTwilioFake>>;
