/*
 * Starting a recorded turn on the durable engine. The chats area cannot import the Inngest client
 * (it sits above it): the entry floor registers the sender (server/compose/engine-wakeups.ts), which sends
 * the chat-turn event (inngest/functions/chat-turn.ts). With none registered a turn only stays queued.
 */

export type QueuedTurn = { turnId: string; chatId: string; accountId: string };
export type TurnDispatcher = (turn: QueuedTurn) => Promise<void>;

let dispatcher: TurnDispatcher | null = null;

export function registerTurnDispatcher(fn: TurnDispatcher | null): void {
  dispatcher = fn;
}

export function turnDispatcher(): TurnDispatcher | null {
  return dispatcher;
}
