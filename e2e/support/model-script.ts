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
    return { text: 'The email is staged and waits for your decision.' };
  };
  return startScriptedModel({ fallback: reply });
}
