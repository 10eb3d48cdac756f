import type { AssistantContent, ModelMessage, ToolContent } from 'ai';
import type { TaskActivityRow } from '@/db/schema';
import { asUntrustedData } from './untrusted';

/**
 * A task's activities as the model reads them (spec: Wire details, Model requests): the user's
 * messages verbatim, the assistant's as assistant messages, earlier tool calls replayed as an
 * assistant message with tool calls followed by one tool message per result, and messages of
 * other people (peers, contacts), what fired the task (an external trigger's event) and every
 * tool result wrapped as untrusted data.
 */
export function conversationMessages(activities: TaskActivityRow[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  // The assistant message that holds the tool calls of the current group, and its run.
  let group: { content: Exclude<AssistantContent, string>; runId: string | null } | null = null;
  let results: ToolContent | null = null;
  let lastText: { index: number; runId: string | null; text: string } | null = null;

  for (const a of activities) {
    // Steward's notes on the task are for the user to see; the model is told what it needs in the system message.
    if (a.kind === 'system') continue;
    if (a.kind !== 'tool') {
      group = null;
      results = null;
      if (a.kind === 'user') messages.push({ role: 'user', content: a.content });
      else if (a.kind === 'peer') messages.push({ role: 'user', content: asUntrustedData(`peer:${a.platform ?? 'message'}`, a.content) });
      else if (a.kind === 'contact') messages.push({ role: 'user', content: asUntrustedData(`contact:${a.platform ?? 'message'}`, a.content) });
      else if (a.kind === 'event') messages.push({ role: 'user', content: `What fired this task:\n${asUntrustedData('trigger', a.content)}` });
      else {
        messages.push({ role: 'assistant', content: a.content });
        lastText = { index: messages.length - 1, runId: a.runId, text: a.content };
        continue;
      }
      lastText = null;
      continue;
    }
    const callId = a.toolCallId ?? `call_${a.id}`;
    const name = a.toolName ?? 'unknown_tool';
    if (!group || group.runId !== a.runId) {
      // Text the model wrote with its tool calls (same run, recorded just before) belongs to that message.
      const text = lastText && lastText.index === messages.length - 1 && lastText.runId === a.runId ? lastText : null;
      group = { content: text ? [{ type: 'text', text: text.text }] : [], runId: a.runId };
      results = [];
      if (text) messages[text.index] = { role: 'assistant', content: group.content };
      else messages.push({ role: 'assistant', content: group.content });
      messages.push({ role: 'tool', content: results });
    }
    lastText = null;
    group.content.push({ type: 'tool-call', toolCallId: callId, toolName: name, input: a.toolInput ?? {} });
    results!.push({ type: 'tool-result', toolCallId: callId, toolName: name, output: { type: 'text', value: asUntrustedData(`tool:${name}`, a.toolOutput) } });
  }
  return messages;
}
