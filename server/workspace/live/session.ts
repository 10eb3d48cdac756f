import { eq } from 'drizzle-orm';
import type { WebSocket } from 'ws';
import type { Db } from '@/db/client';
import { handoffs, type HandoffRow } from '@/db/schema';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { readControl } from '../control';
import { workspaceOf } from '../browser/user-workspace';
import { handoffBrowser } from '../handoffs/browser-seam';
import { answerHandoff } from '../handoffs/service';
import { LiveBridge } from './bridge';
import { ClientMessage, type ServerMessage } from './protocol';

/*
 * One admitted live-view connection. The person acts only while they hold control of this
 * handoff; the connection ends when the handoff closes (here, through the API, or by expiry),
 * when control moves to another handoff, or after a while without input (idle sessions end on
 * their own: a new link opens it again).
 */

const WATCH_MS = 1_500;
const IDLE_MS = 15 * 60_000;
/** Frames are dropped, never queued, while the viewer's connection is this far behind. */
const MAX_BUFFERED = 4 * 1024 * 1024;

export async function runLiveSession(db: Db, ws: WebSocket, handoff: HandoffRow): Promise<void> {
  const owner = { accountId: handoff.accountId, userId: handoff.userId };
  let bridge: LiveBridge | null = null;
  let keepAlive: (() => void) | null = null;
  /** While someone watches, the browser is in use: never closed to make room for another (browser/capacity.ts). */
  let release: (() => void) | undefined;
  let ended = false;
  let lastInput = Date.now();

  const send = (m: ServerMessage) => {
    if (ws.readyState !== ws.OPEN) return;
    if (m.type === 'frame' && ws.bufferedAmount > MAX_BUFFERED) return;
    ws.send(JSON.stringify(m));
  };
  const end = async (code: number, reason: string) => {
    if (ended) return;
    ended = true;
    clearInterval(watch);
    release?.();
    await bridge?.stop().catch(() => {});
    if (ws.readyState === ws.OPEN) ws.close(code, reason);
  };
  const holdsControl = async () => {
    const c = await readControl(db, owner.accountId, owner.userId);
    return c.operator === 'user' && c.handoffId === handoff.id;
  };

  const watch = setInterval(() => {
    void (async () => {
      const [now] = await db.select().from(handoffs).where(eq(handoffs.id, handoff.id));
      if (!now || now.closedAt) {
        send({ type: 'closed', status: now?.status ?? 'closed', closeReason: now?.closeReason ?? null });
        return end(1000, 'handoff closed');
      }
      if (!(await holdsControl())) {
        send({ type: 'error', error: 'Control of the browser moved to another session' });
        return end(4409, 'control moved');
      }
      if (Date.now() - lastInput > IDLE_MS) return end(4408, 'idle');
      // Someone is watching: the browser is in use even between inputs.
      keepAlive?.();
    })().catch((err: unknown) => logger.warn({ err, handoffId: handoff.id }, 'live view: watch failed'));
  }, WATCH_MS);

  ws.on('close', () => void end(1000, 'closed'));
  ws.on('message', (raw) => {
    void (async () => {
      let parsed: ClientMessage;
      try {
        const r = ClientMessage.safeParse(JSON.parse(String(raw)));
        if (!r.success) return send({ type: 'error', error: 'unrecognised message' });
        parsed = r.data;
      } catch {
        return send({ type: 'error', error: 'unrecognised message' });
      }
      lastInput = Date.now();
      if (parsed.type === 'mouse' || parsed.type === 'key' || parsed.type === 'text') {
        // Control is checked by the watch: the connection ends as soon as the person no longer holds it.
        if (bridge) {
          keepAlive?.();
          await bridge.input(parsed);
        }
        return;
      }
      try {
        const answer = parsed.type === 'defer' ? { kind: 'defer' as const, message: parsed.message, deferMinutes: parsed.deferMinutes } : { kind: parsed.type };
        const closed = await answerHandoff(db, owner, handoff.id, answer);
        send({ type: 'closed', status: closed.status, closeReason: closed.closeReason });
        await end(1000, 'handoff closed');
      } catch (err) {
        send({ type: 'error', error: err instanceof AppError ? err.message : 'That did not work; try again' });
        if (!(err instanceof AppError)) logger.error({ err, handoffId: handoff.id }, 'live view: answering the handoff failed');
      }
    })();
  });

  send({
    type: 'hello',
    handoff: { id: handoff.id, prompt: handoff.prompt, actionType: handoff.actionType, targetUrl: handoff.targetUrl, taskId: handoff.taskId, expiresAt: handoff.expiresAt.toISOString() },
  });
  const browser = handoffBrowser();
  if (!browser) return send({ type: 'status', browser: 'unavailable' });
  send({ type: 'status', browser: 'starting' });
  try {
    const live = await browser.livePage(owner.accountId, owner.userId, handoff.taskId);
    if (ended) return;
    if (!live) return send({ type: 'status', browser: 'unavailable' });
    release = workspaceOf(live.context)?.hold();
    keepAlive = live.touch;
    bridge = new LiveBridge(live.context, send);
    await bridge.start(live.page);
    send({ type: 'status', browser: 'running' });
  } catch (err) {
    logger.warn({ err, handoffId: handoff.id }, 'live view: the browser could not be shown');
    // A refusal the person can act on (all browsers busy: browser_capacity) is said as it is.
    if (err instanceof AppError) send({ type: 'error', error: err.message });
    send({ type: 'status', browser: 'unavailable' });
  }
}
