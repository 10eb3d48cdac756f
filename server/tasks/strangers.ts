import type { TaskRow } from '@/db/schema';

/*
 * A conversation with someone who is not the owner (issue: the channel layer; assistants'
 * `talkToStrangers`): a task of the owner, tagged with the assistant and the counterpart, whose
 * runs may read nothing private of the owner — no memories, no contacts, no mail, no files, no
 * browser, no skills — so what a stranger can make the model say cannot carry the owner's data;
 * and since the stranger's words taint it, every reply waits for the owner's approval.
 */

const PREFIX = 'stranger:';

export const strangerTag = (assistantId: string, counterpart: string) => `${PREFIX}${assistantId}:${counterpart.toLowerCase()}`;

/** The counterpart of a stranger conversation, or null for any other task. */
export function strangerOf(task: Pick<TaskRow, 'tags'>): string | null {
  const tag = task.tags.find((t) => t.startsWith(PREFIX));
  return tag ? tag.slice(tag.indexOf(':', PREFIX.length) + 1) : null;
}
