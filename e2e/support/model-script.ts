import { startScriptedModel, type ModelRequest, type ScriptedReply } from '../../tests/helpers/scripted-model';

/*
 * The model of the browser tests: the scripted Chat Completions server on loopback, driven by
 * what the specs write in a task's message, since the specs run in other processes than this
 * one. A message holding `[[send_email {"id": ..., "to": [...], "subject": ..., "body": ...}]]`
 * makes the first model call that reads it stage that email (the `send_email` tool); every
 * later call, and any call without a directive, answers in text.
 */

const DIRECTIVE = /\[\[send_email (\{.*?\})\]\]/g;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
  return '';
}

/** Builds a `[[send_email ...]]` directive for a task message (used by the specs). */
export const sendEmailDirective = (email: { id: string; to: string[]; subject: string; body: string }) => `[[send_email ${JSON.stringify(email)}]]`;

/*
 * `[[handoff {"id": ..., "url": ..., "prompt": ...}]]` in a task message: the first call asks for
 * a handoff (request_handoff, actionType login) to that URL. Once the request's result carries
 * the outcome `completed`, the next call reads the task's tab (browser_read), and the call after
 * that answers with what the page said (`Signed-in page: <text>`), so a spec can see what the
 * assistant read.
 */
const HANDOFF = /\[\[handoff (\{.*?\})\]\]/g;

/** Builds a `[[handoff ...]]` directive for a task message (used by the specs). */
export const handoffDirective = (h: { id: string; url: string; prompt: string }) => `[[handoff ${JSON.stringify(h)}]]`;

function handoffStep(request: ModelRequest, said: string, served: Set<string>): ScriptedReply | null {
  for (const [, json] of said.matchAll(HANDOFF)) {
    let h: { id?: string; url?: string; prompt?: string };
    try {
      h = JSON.parse(json);
    } catch {
      continue;
    }
    if (!h.id || !h.url) continue;
    const key = `handoff:${h.id}`;
    if (!served.has(key)) {
      served.add(key);
      return { toolCalls: [{ name: 'request_handoff', arguments: { actionType: 'login', targetUrl: h.url, prompt: h.prompt ?? 'Please sign in' } }] };
    }
    const tools = request.messages.filter((m) => m?.role === 'tool').map((m) => textOf(m.content));
    const completed = tools.some((t) => t.includes('closeReason') && t.includes('completed'));
    if (completed && !served.has(`${key}:read`)) {
      served.add(`${key}:read`);
      return { toolCalls: [{ name: 'browser_read', arguments: {} }] };
    }
    if (served.has(`${key}:read`) && !served.has(`${key}:said`)) {
      served.add(`${key}:said`);
      const read = (tools.at(-1) ?? '').replace(/\s+/g, ' ');
      return { text: `Signed-in page: ${read.slice(0, 2000)}` };
    }
    return { text: 'Waiting for you to finish in the browser.' };
  }
  return null;
}

/*
 * The hosted app's specs (e2e/hosted-app-*.spec.ts):
 * `[[ask_user {"id", "question"}]]`: the first call asks the user (ask_user); once they answered (a
 * later user message), the next call completes the task with a summary quoting the answer.
 * `[[propose {"id", "title", "description"}]]`: the first call proposes a task (create_task with
 * needsApproval), the next completes this one.
 * `[[slow_reply {"id", "words", "delayMs"}]]` in a chat message: the reply is `words` numbered
 * words ("w001 w002 ..."), streamed 8 characters at a time, `delayMs` apart.
 */
const ASK = /\[\[ask_user (\{.*?\})\]\]/g;
const PROPOSE = /\[\[propose (\{.*?\})\]\]/g;
const SLOW = /\[\[slow_reply (\{.*?\})\]\]/g;
/** Live voice (e2e/hosted-app-voice.spec.ts): a message saying `voice check <id>` is answered `Voice check <id> received: all good.` */
const VOICE_CHECK = /\bvoice check ([A-Za-z0-9-]+)/i;
export const voiceCheckReply = (id: string) => `Voice check ${id} received: all good.`;
/** The screenshots' chat (e2e/app.screens.ts): a question answered as an assistant would, so docs/screens shows a real conversation. */
export const SCREENS_CHAT: Record<string, string> = {
  'Any ideas for Saturday?':
    'A few, depending on the weather:\n\n• The flea market at Place d’Aligre opens at 8, and the bakery next to it has your favourite croissants.\n• If it rains, the photography exhibition at the Jeu de Paume runs until 7 pm.\n• Dinner: Chez Janou still has a table for two at 8 pm. Shall I book it?',
};

export const askUserDirective = (a: { id: string; question: string }) => `[[ask_user ${JSON.stringify(a)}]]`;
export const proposeDirective = (p: { id: string; title: string; description: string }) => `[[propose ${JSON.stringify(p)}]]`;
export const slowReplyDirective = (r: { id: string; words: number; delayMs: number }) => `[[slow_reply ${JSON.stringify(r)}]]`;
/** The text a slow reply streams. */
export const slowReplyText = (words: number) => Array.from({ length: words }, (_, i) => `w${String(i + 1).padStart(3, '0')}`).join(' ');

function parse<T>(json: string): T | null {
  try {
    return JSON.parse(json) as T;
  } catch {
    return null;
  }
}

function hostedAppStep(request: ModelRequest, said: string, served: Set<string>): ScriptedReply | null {
  const users = request.messages.filter((m) => m?.role === 'user').map((m) => textOf(m.content));
  for (const [, json] of said.matchAll(ASK)) {
    const a = parse<{ id?: string; question?: string }>(json);
    if (!a?.id || !a.question) continue;
    if (!served.has(`ask:${a.id}`)) {
      served.add(`ask:${a.id}`);
      return { toolCalls: [{ name: 'ask_user', arguments: { question: a.question } }] };
    }
    const answer = users.at(-1) ?? '';
    if (!served.has(`ask:${a.id}:done`) && !answer.includes('[[ask_user')) {
      served.add(`ask:${a.id}:done`);
      return { toolCalls: [{ name: 'complete_task', arguments: { summary: `Done with your answer: ${answer.replace(/\s+/g, ' ').slice(-200)}` } }] };
    }
  }
  for (const [, json] of said.matchAll(PROPOSE)) {
    const p = parse<{ id?: string; title?: string; description?: string }>(json);
    if (!p?.id || !p.title) continue;
    if (!served.has(`propose:${p.id}`)) {
      served.add(`propose:${p.id}`);
      return { toolCalls: [{ name: 'create_task', arguments: { title: p.title, description: p.description ?? '', needsApproval: true } }] };
    }
    if (!served.has(`propose:${p.id}:done`)) {
      served.add(`propose:${p.id}:done`);
      return { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Proposed a follow-up task for your approval.' } }] };
    }
  }
  const canned = SCREENS_CHAT[(users.at(-1) ?? '').trim()];
  if (canned) return { text: canned };
  const voiceCheck = VOICE_CHECK.exec(users.at(-1) ?? '');
  if (voiceCheck && !served.has(`voice:${voiceCheck[1]}`)) {
    served.add(`voice:${voiceCheck[1]}`);
    return { text: voiceCheckReply(voiceCheck[1]!) };
  }
  for (const [, json] of said.matchAll(SLOW)) {
    const r = parse<{ id?: string; words?: number; delayMs?: number }>(json);
    if (!r?.id || served.has(`slow:${r.id}`)) continue;
    served.add(`slow:${r.id}`);
    return { text: slowReplyText(r.words ?? 60), chunkDelayMs: r.delayMs ?? 50 };
  }
  return null;
}

export async function startE2eModel() {
  const served = new Set<string>();
  const reply = (request: ModelRequest): ScriptedReply => {
    const said = request.messages.filter((m) => m?.role === 'user').map((m) => textOf(m.content)).join('\n');
    for (const [, json] of said.matchAll(DIRECTIVE)) {
      let email: { id?: string; to?: string[]; subject?: string; body?: string };
      try {
        email = JSON.parse(json);
      } catch {
        continue;
      }
      if (!email.id || served.has(email.id)) continue;
      served.add(email.id);
      return { toolCalls: [{ name: 'send_email', arguments: { to: email.to, subject: email.subject, body: email.body } }] };
    }
    const handoff = handoffStep(request, said, served);
    if (handoff) return handoff;
    const hosted = hostedAppStep(request, said, served);
    if (hosted) return hosted;
    return { text: 'The email is staged and waits for your decision.' };
  };
  return startScriptedModel({ fallback: reply });
}
