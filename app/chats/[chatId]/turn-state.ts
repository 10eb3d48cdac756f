/*
 * What the chat page holds of a turn in progress, and keeps in sessionStorage so a reload
 * resumes where it was: the execution id, the last event id received (sent back as
 * Last-Event-ID), and the preview text received so far, delta by delta (a `restarted` event
 * voids the deltas of an interrupted model call, docs/chat-streaming.md).
 */

export type Delta = { seq: number; step: number; text: string };
export type Turn = { executionId: string; lastEventId: number; deltas: Delta[]; status: string };

const key = (chatId: string) => `steward:chat-turn:${chatId}`;

export function loadTurn(chatId: string): Turn | null {
  try {
    const raw = sessionStorage.getItem(key(chatId));
    return raw ? (JSON.parse(raw) as Turn) : null;
  } catch {
    return null;
  }
}

export function saveTurn(chatId: string, turn: Turn | null) {
  try {
    if (turn) sessionStorage.setItem(key(chatId), JSON.stringify(turn));
    else sessionStorage.removeItem(key(chatId));
  } catch {
    // Storage full or refused: the stream still works, a reload replays from the start instead.
  }
}

/** The live preview: the text of the newest model call. */
export function previewOf(turn: Turn | null): string {
  if (!turn?.deltas.length) return '';
  const step = Math.max(...turn.deltas.map((d) => d.step));
  return turn.deltas
    .filter((d) => d.step === step)
    .map((d) => d.text)
    .join('');
}

/** The turn after one more event: deltas added, voided ones dropped, the status followed. */
export function applyEvent(turn: Turn, e: { id: number | null; event: string; data: unknown }): Turn {
  const next: Turn = { ...turn, lastEventId: e.id ?? turn.lastEventId };
  const d = (e.data ?? {}) as { step?: number; delta?: string; state?: string; supersedesFrom?: number };
  if (e.event === 'interim_message' && typeof d.delta === 'string' && e.id !== null) next.deltas = [...turn.deltas, { seq: e.id, step: d.step ?? 0, text: d.delta }];
  if (e.event === 'status_update' && d.state === 'restarted') next.deltas = turn.deltas.filter((x) => !(x.step === d.step && x.seq >= (d.supersedesFrom ?? 0)));
  if (e.event === 'status_update' && d.state) next.status = d.state;
  return next;
}
