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
    return { text: 'The email is staged and waits for your decision.' };
  };
  return startScriptedModel({ fallback: reply });
}
