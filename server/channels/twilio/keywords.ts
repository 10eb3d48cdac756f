/*
 * Opt-out keywords (Twilio's "Support for opt-out keywords"): a text that is one of these words
 * alone, whatever its case, opts the person out of, back into, or asks for help about texts from
 * the number it was sent to. Twilio blocks sends after STOP itself (error 21610) on SMS; Steward
 * keeps its own list too, so nothing is attempted, WhatsApp and iMessage included. With Twilio's
 * Advanced Opt-Out the webhook names the keyword (`OptOutType`), which wins.
 */

const STOP = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT']);
const START = new Set(['START', 'YES', 'UNSTOP']);
const HELP = new Set(['HELP', 'INFO']);

export type Keyword = 'stop' | 'start' | 'help';

export function keywordOf(body: string, optOutType?: string | null): Keyword | null {
  if (optOutType === 'STOP') return 'stop';
  if (optOutType === 'START') return 'start';
  if (optOutType === 'HELP') return 'help';
  const word = body.trim().toUpperCase();
  if (STOP.has(word)) return 'stop';
  if (START.has(word)) return 'start';
  if (HELP.has(word)) return 'help';
  return null;
}
