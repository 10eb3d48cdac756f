import type { Db } from '@/db/client';
import { slackProgressAfterMs } from '@/server/channels/slack/config';
import { slackBot } from '@/server/channels/slack/installations';
import { postMessage, updateMessage } from '@/server/channels/slack/web-api';
import { tailTurn } from '@/server/chats/stream-tail';
import { FINAL_KINDS, readTurnEvents } from '@/server/chats/turn-events';
import { logger } from '@/server/logger';

/*
 * A long turn shows that it is working (issue 33): when a turn answering a Slack message has not
 * ended after STEWARD_SLACK_PROGRESS_AFTER_MS (4 s), one message is posted in the thread and then
 * updated (chat.update) as the turn moves — thinking, which tools it calls — at most every 1.5 s;
 * when the turn ends it says so, and the answer itself arrives as its own message (replies.ts, the
 * chat-turn function's last step). The turn's events are read from the database, so this works
 * whichever process runs the turn. Best effort: a progress message that fails changes nothing.
 */

export type SlackThread = { appId: string; teamId: string; channel: string; threadTs: string | null };

const MIN_UPDATE_MS = 1_500;
const MAX_WATCH_MS = 30 * 60_000;

type TurnEventData = { state?: string; step?: number; tools?: string[]; tool?: string; message?: string };

function progressText(data: TurnEventData): string | null {
  if (data.state === 'thinking') return `Working on it… (step ${data.step ?? 1}: thinking)`;
  if (data.state === 'tool_calls' && data.tools?.length) return `Working on it… (step ${data.step ?? 1}: using ${data.tools.join(', ')})`;
  if (data.state === 'tool_result' && data.tool) return `Working on it… (step ${data.step ?? 1}: ${data.tool} done)`;
  return null;
}

export function watchSlackProgress(db: Db, turnId: string, thread: SlackThread): void {
  const after = slackProgressAfterMs();
  const timer = setTimeout(() => void watch(db, turnId, thread).catch((err: unknown) => logger.warn({ err, turnId }, 'slack progress: gave up')), after);
  timer.unref();
}

async function watch(db: Db, turnId: string, thread: SlackThread): Promise<void> {
  const seen = await readTurnEvents(db, turnId, 0);
  if (seen.some((e) => FINAL_KINDS.has(e.kind))) return;
  const bot = await slackBot(db, thread.appId, thread.teamId);
  if (!bot) return;
  const posted = await postMessage(bot.token, { channel: thread.channel, threadTs: thread.threadTs, text: 'Working on it…' });
  if (posted.state !== 'accepted' || !posted.providerMessageId) return;
  const [channel, ts] = posted.providerMessageId.split('/') as [string, string];
  let last = 0;
  let pending: string | null = null;
  const signal = AbortSignal.timeout(MAX_WATCH_MS);
  await tailTurn(
    db,
    turnId,
    seen.at(-1)?.seq ?? 0,
    async (sent) => {
      if ('comment' in sent) return;
      const e = { event: sent.event ?? '', data: sent.data };
      const data = (e.data ?? {}) as TurnEventData;
      if (e.event === 'message') return void (await updateMessage(bot.token, channel, ts, 'Done: my answer follows in this thread.'));
      if (e.event === 'error') return void (await updateMessage(bot.token, channel, ts, `Stopped: ${String(data.message ?? 'the turn could not finish').slice(0, 500)}`));
      const text = e.event === 'status_update' ? progressText(data) : null;
      if (text) pending = text;
      if (pending && Date.now() - last >= MIN_UPDATE_MS) {
        last = Date.now();
        await updateMessage(bot.token, channel, ts, pending);
        pending = null;
      }
    },
    signal,
  );
}
