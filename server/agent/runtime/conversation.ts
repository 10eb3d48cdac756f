import type { AssistantContent, ModelMessage, ToolContent, UserContent } from 'ai';
import type { TaskActivityRow } from '@/db/schema';
import { attachedLine, type AttachedFile, type ShownImage } from '@/server/files/attached';
import { asUntrustedData, UNTRUSTED_TAG } from '@/server/models/untrusted';

/**
 * The files a conversation carries (context.ts reads them as the owner): each is named
 * where it was attached, and images a tier's model accepts are shown there too.
 */
export type ConversationFiles = { files: ReadonlyMap<string, AttachedFile>; images: ReadonlyMap<string, ShownImage> };

const NO_FILES: ConversationFiles = { files: new Map(), images: new Map() };

/** The message's text with its files named after it. */
export const withFiles = (text: string, ids: readonly string[], f: ConversationFiles) => {
  const line = attachedLine(ids, f.files);
  return line ? (text ? `${text}\n\n${line}` : line) : text;
};

/**
 * A user message with the images it carries, each inside the untrusted wrapper: what an image
 * shows (a screenshot of an email, a photo of a sign) is outside content like a document's text.
 */
export function userContent(text: string, ids: readonly string[], f: ConversationFiles): string | UserContent {
  const shown = ids.map((id) => f.images.get(id)).filter((i): i is ShownImage => Boolean(i));
  if (!shown.length) return text;
  const parts: Exclude<UserContent, string> = [{ type: 'text', text }];
  for (const image of shown) {
    parts.push({ type: 'text', text: `<${UNTRUSTED_TAG} source="file:${image.fileId.replace(/[^a-zA-Z0-9_-]/g, '_')}">` });
    parts.push({ type: 'image', image: image.bytes, mediaType: image.mediaType });
    parts.push({ type: 'text', text: `</${UNTRUSTED_TAG}>` });
  }
  return parts;
}

/**
 * A task's activities as the model reads them (spec: Wire details, Model requests): the user's
 * messages verbatim, the assistant's as assistant messages, earlier tool calls replayed as an
 * assistant message with tool calls followed by one tool message per result, and messages of
 * other people (peers, contacts), what fired the task (an external trigger's event) and every
 * tool result wrapped as untrusted data. Files attached to a message are named after its text
 * (name, type, size, id) so the model can read them; images are shown to a model that sees them.
 */
export function conversationMessages(activities: TaskActivityRow[], attached: ConversationFiles = NO_FILES): ModelMessage[] {
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
      const ids = a.fileIds ?? [];
      if (a.kind === 'user') messages.push({ role: 'user', content: userContent(withFiles(a.content, ids, attached), ids, attached) });
      else if (a.kind === 'peer') messages.push({ role: 'user', content: asUntrustedData(`peer:${a.platform ?? 'message'}`, withFiles(a.content, ids, attached)) });
      else if (a.kind === 'contact') messages.push({ role: 'user', content: asUntrustedData(`contact:${a.platform ?? 'message'}`, withFiles(a.content, ids, attached)) });
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
