/*
 * TwiML for calls (Twilio's "TwiML for Programmable Voice"): what Steward answers a voice webhook
 * with. A conversation is <Gather input="speech"> around the assistant's spoken line: Twilio
 * speaks it (<Say>, Twilio's text to speech in the assistant's voice) and posts what the person
 * says next (SpeechResult) to the Gather's action URL. Text is escaped for XML, and characters
 * XML cannot carry are dropped.
 */

export type Voice = { voice: string | null; language: string };

export type Verb =
  | { say: string }
  | { gather: { action: string; say: string[]; timeoutSec?: number } }
  | { redirect: string }
  | { pause: number }
  /** <Connect><Stream>: a bidirectional media stream to Steward's WebSocket; <Parameter>s reach it in the start message. */
  | { stream: { url: string; parameters: Record<string, string> } }
  | { hangup: true }
  | { reject: 'busy' | 'rejected' };

/** Twilio's limit for one <Say> is 4,096 characters; a longer reply is cut and the person told where the rest is. */
const MAX_SAY = 3_000;

const INVALID_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD]/g;
export const xmlEscape = (s: string) =>
  s.replace(INVALID_XML, '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** A line as it is spoken: whitespace folded, markdown marks that would be read aloud dropped, cut to Twilio's limit. */
export function spoken(text: string, more = 'The rest is in your chat.'): string {
  const plain = text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/[*_`#>]+/g, '')
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length <= MAX_SAY ? plain : `${plain.slice(0, MAX_SAY).replace(/\s+\S*$/, '')}… ${more}`;
}

function sayXml(text: string, v: Voice): string {
  const attrs = `${v.voice ? ` voice="${xmlEscape(v.voice)}"` : ''} language="${xmlEscape(v.language)}"`;
  return `<Say${attrs}>${xmlEscape(text)}</Say>`;
}

function verbXml(verb: Verb, v: Voice): string {
  if ('say' in verb) return verb.say ? sayXml(verb.say, v) : '';
  if ('gather' in verb) {
    const g = verb.gather;
    const inner = g.say.filter(Boolean).map((s) => sayXml(s, v)).join('');
    return `<Gather input="speech" action="${xmlEscape(g.action)}" method="POST" speechTimeout="auto" timeout="${g.timeoutSec ?? 6}" language="${xmlEscape(v.language)}" actionOnEmptyResult="true">${inner}</Gather>`;
  }
  if ('redirect' in verb) return `<Redirect method="POST">${xmlEscape(verb.redirect)}</Redirect>`;
  if ('stream' in verb) {
    const params = Object.entries(verb.stream.parameters)
      .map(([name, value]) => `<Parameter name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`)
      .join('');
    return `<Connect><Stream url="${xmlEscape(verb.stream.url)}">${params}</Stream></Connect>`;
  }
  if ('pause' in verb) return `<Pause length="${Math.max(1, Math.min(10, Math.round(verb.pause)))}"/>`;
  if ('hangup' in verb) return '<Hangup/>';
  return `<Reject reason="${verb.reject}"/>`;
}

export function twiml(verbs: Verb[], v: Voice): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs.map((x) => verbXml(x, v)).join('')}</Response>`;
}

export const twimlResponse = (xml: string) => new Response(xml, { status: 200, headers: { 'Content-Type': 'text/xml; charset=utf-8', 'Cache-Control': 'no-store' } });
