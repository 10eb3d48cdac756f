import type { Tx } from '@/db/client';

/**
 * The open tasks an assistant works on, as releasing an assistant needs them: how many there
 * are, and moving them to another assistant. Tasks sit above assistants (docs/architecture.md),
 * so this area cannot ask them: the tasks area registers its answer here at start-up, from the
 * entry floor. Until it does there are no tasks, so there is nothing to count or move.
 */
export type OpenTasks = {
  count(tx: Tx, assistantId: string): Promise<number>;
  move(tx: Tx, fromAssistantId: string, toAssistantId: string): Promise<void>;
};

const noTasks: OpenTasks = { count: async () => 0, move: async () => {} };
let openTasks = noTasks;

/** Called once by the tasks area; release already asks before it deletes an assistant. */
export function registerOpenTasks(answer: OpenTasks): void {
  openTasks = answer;
}

export const openTaskCount = (tx: Tx, assistantId: string) => openTasks.count(tx, assistantId);

export const moveOpenTasks = (tx: Tx, fromAssistantId: string, toAssistantId: string) => openTasks.move(tx, fromAssistantId, toAssistantId);
