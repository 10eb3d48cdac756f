import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Db } from '@/db/client';
import { logger } from '@/server/logger';
import { admit, LIVE_PATH } from '@/server/workspace/live/connect';
import { runLiveSession } from '@/server/workspace/live/session';

/*
 * Composition (entry floor): the handoff live view's WebSocket, served by the process's own
 * http.Server (scripts/start.ts attaches it in every mode: lean, dev, next) at
 * /api/workspace/live/{handoffId}?token=…. Only an admitted single-use token upgrades; any
 * other upgrade request on that path is answered with an HTTP status and closed. Upgrades on
 * other paths (Next's dev server) are left to their own listeners. The URL, which carries the
 * token, is never logged.
 */

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 410: 'Gone', 500: 'Internal Server Error' };

function refuse(socket: Duplex, status: number, reason: string) {
  const body = JSON.stringify({ ok: false, status, error: reason });
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

export function attachWorkspaceLive(server: http.Server, db: Db): { close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://live.invalid');
    const m = LIVE_PATH.exec(url.pathname);
    if (!m) {
      // Another listener (Next's development server) may take it; alone, close it as Node would.
      if (server.listenerCount('upgrade') === 1) socket.destroy();
      return;
    }
    socket.on('error', () => socket.destroy());
    const headers = { get: (name: string) => { const v = req.headers[name.toLowerCase()]; return Array.isArray(v) ? v.join(', ') : (v ?? null); } };
    admit(db, m[1], url.searchParams.get('token') ?? '', headers)
      .then((a) => {
        if (!a.ok) return refuse(socket, a.status, a.reason);
        wss.handleUpgrade(req, socket, head, (ws) => {
          runLiveSession(db, ws, a.handoff).catch((err: unknown) => {
            logger.error({ err, handoffId: a.handoff.id }, 'live view failed');
            ws.close(1011, 'failed');
          });
        });
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'live view: admission failed');
        refuse(socket, 500, 'unexpected failure');
      });
  });
  const close = () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
  };
  server.once('close', close);
  return { close };
}
