/*
 * TwiML as Twilio reads it, for the Twilio stand-in (twilio-fake.ts) and the tests and bench that
 * look at what Steward answered a call with: the verbs of a document, in order. Written on its
 * own from Twilio's TwiML reference, not from Steward's builder, so a wrong builder is caught.
 */

export type TwimlVerb =
  | { verb: 'Say'; text: string; voice: string | null; language: string | null }
  | { verb: 'Play'; url: string }
  | { verb: 'Gather'; action: string; say: string[]; attrs: Record<string, string> }
  | { verb: 'Redirect'; url: string }
  | { verb: 'Pause' }
  | { verb: 'Stream'; url: string; parameters: Record<string, string> }
  | { verb: 'Hangup' }
  | { verb: 'Reject'; reason: string | null };

const unescapeXml = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!);
const attrsOf = (raw: string) => Object.fromEntries([...raw.matchAll(/([A-Za-z]+)="([^"]*)"/g)].map((m) => [m[1]!, unescapeXml(m[2]!)]));

/** The verbs of a TwiML document, in order. */
export function parseTwiml(xml: string): TwimlVerb[] {
  const body = /<Response>([\s\S]*)<\/Response>/.exec(xml)?.[1] ?? '';
  const out: TwimlVerb[] = [];
  for (const m of body.matchAll(/<(Say|Play|Gather|Redirect|Pause|Hangup|Reject|Connect)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/g)) {
    const [, verb, rawAttrs, inner = ''] = m;
    const a = attrsOf(rawAttrs!);
    if (verb === 'Connect') {
      // <Connect><Stream url=…><Parameter name= value=/>…</Stream></Connect>: a bidirectional media stream.
      const stream = /<Stream\b([^>]*?)(?:\/>|>([\s\S]*?)<\/Stream>)/.exec(inner);
      if (stream) {
        const parameters = Object.fromEntries([...(stream[2] ?? '').matchAll(/<Parameter\b([^>]*?)\/>/g)].map((x) => attrsOf(x[1]!)).map((pa) => [pa.name ?? '', pa.value ?? '']));
        out.push({ verb: 'Stream', url: attrsOf(stream[1]!).url ?? '', parameters });
      }
    } else if (verb === 'Say') out.push({ verb, text: unescapeXml(inner), voice: a.voice ?? null, language: a.language ?? null });
    else if (verb === 'Play') out.push({ verb, url: unescapeXml(inner.trim()) });
    else if (verb === 'Gather') out.push({ verb, action: a.action ?? '', say: [...inner.matchAll(/<Say\b[^>]*>([\s\S]*?)<\/Say>/g)].map((x) => unescapeXml(x[1]!)), attrs: a });
    else if (verb === 'Redirect') out.push({ verb, url: unescapeXml(inner.trim()) });
    else if (verb === 'Reject') out.push({ verb, reason: a.reason ?? null });
    else out.push({ verb: verb as 'Pause' | 'Hangup' });
  }
  return out;
}
