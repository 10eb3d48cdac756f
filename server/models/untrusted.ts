/**
 * Content from outside the user (tool results, messages from other people, web pages, documents)
 * reaches the model wrapped and marked as data (spec: What the model sees). The system message
 * tells the model never to follow instructions inside the tag; a closing tag inside the content
 * is defused so the content cannot end the wrapper early and speak as instructions.
 */
export const UNTRUSTED_TAG = 'untrusted-data';

export function asUntrustedData(source: string, content: unknown): string {
  const text = typeof content === 'string' ? content : JSON.stringify(content ?? null);
  const defused = text.replace(/<(\/?)\s*untrusted-data/gi, '<$1untrusted_data');
  return `<${UNTRUSTED_TAG} source="${source.replace(/[^a-zA-Z0-9_:.-]/g, '_')}">\n${defused}\n</${UNTRUSTED_TAG}>`;
}
