import type { Db } from '@/db/client';
import type { ChannelAdapter, Connection, ThreadRef } from '@/server/channels/adapter';
import { tailTurn } from '@/server/chats/stream-tail';
import { FINAL_KINDS, readTurnEvents } from '@/server/chats/turn-events';
import { logger } from '@/server/logger';

/*
 * A long turn shows that it is working (issue 33; for every adapter that offers it since issue 41):
 * when a turn answering a message in a 1:1 thread has not ended after the adapter's
 * `progressAfterMs` (Slack: STEWARD_SLACK_PROGRESS_AFTER_MS, 4 s), one message is posted in the
 * thread and then edited as the turn moves — thinking, which tools it calls — at most every 1.5 s;
 * when the turn ends it says so, and the answer itself arrives as its own message (replies.ts, the
 * chat-turn function's last step). The turn's events are read from the database, so this works
 * whichever process runs the turn. Best effort: a progress message that fails changes nothing.
 */

const MIN_UPDATE_MS = 1_500;
const MAX_WATCH_MS = 30 * 60_000;

type TurnEventData = { state?: string; step?: number; tools?: string[]; tool?: string; message?: string };

function progressText(data: TurnEventData): string | null {
  if (data.state === 'thinking') return `Working on it… (step ${data.step ?? 1}: thinking)`;
  if (data.state === 'tool_calls' && data.tools?.length) return `Working on it… (step ${data.step ?? 1}: using ${data.tools.join(', ')})`;
  if (data.state === 'tool_result' && data.tool) return `Working on it… (step ${data.step ?? 1}: ${data.tool} done)`;
  return null;
}

type Where = { thread: ThreadRef; replyTo: string };

export function watchTurnProgress(db: Db, adapter: ChannelAdapter, connection: Connection, turnId: string, where: Where): void {
  if (!adapter.progressAfterMs || !adapter.editText) return;
  const timer = setTimeout(() => void watch(db, adapter, connection, turnId, where).catch((err: unknown) => logger.warn({ err, turnId }, 'turn progress: gave up')), adapter.progressAfterMs());
  timer.unref();
}

async function watch(db: Db, adapter: ChannelAdapter, connection: Connection, turnId: string, where: Where): Promise<void> {
  const seen = await readTurnEvents(db, turnId, 0);
  if (seen.some((e) => FINAL_KINDS.has(e.kind))) return;
  // A reply in the question's thread (only its writer, the owner, reads it: the caller watches 1:1 threads only).
  const posted = await adapter.send(db, { kind: 'reply', connection, thread: where.thread, replyTo: where.replyTo, text: 'Working on it…', files: [] });
  if (posted.state !== 'accepted' || !posted.providerMessageId) return;
  const ref = posted.providerMessageId;
  const edit = (text: string) => adapter.editText!(db, connection, ref, text);
  let last = 0;
  let pending: string | null = null;
  await tailTurn(
    db,
    turnId,
    seen.at(-1)?.seq ?? 0,
    async (sent) => {
      if ('comment' in sent) return;
      const data = (sent.data ?? {}) as TurnEventData;
      if (sent.event === 'message') return void (await edit('Done: my answer follows in this thread.'));
      if (sent.event === 'error') return void (await edit(`Stopped: ${String(data.message ?? 'the turn could not finish').slice(0, 500)}`));
      const text = sent.event === 'status_update' ? progressText(data) : null;
      if (text) pending = text;
      if (pending && Date.now() - last >= MIN_UPDATE_MS) {
        last = Date.now();
        await edit(pending);
        pending = null;
      }
    },
    AbortSignal.timeout(MAX_WATCH_MS),
  );
}
