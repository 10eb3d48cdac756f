import type http from 'node:http';
import { WebSocketServer } from 'ws';
import type { Db } from '@/db/client';
import { realtimeConfig } from '@/server/channels/realtime/config';
import { refuseUpgrade, serveUpgrade } from '@/server/http/upgrades';
import { logger } from '@/server/logger';
import { admitLiveVoice, LIVE_VOICE_PATH } from './live-voice';
import { runLiveVoice } from './live-voice-socket';

/*
 * The chat page's live voice WebSocket (issue 48) on the process's own http.Server, at
 * /api/chats/{chatId}/voice/live?token=… (scripts/start.ts attaches it in every mode, beside the
 * live view's and Twilio's media streams; server/http/upgrades.ts routes upgrades by path). Only
 * an admitted upgrade is accepted (live-voice.ts); any other is answered with its HTTP status and
 * closed, and nothing is opened. Without a realtime model the path answers 404. The URL, which
 * carries the token, is never logged. A frame is at most 64 KiB (the page sends about 20 ms of
 * audio, under 1 KiB, a frame).
 */

export function attachChatLiveVoice(server: http.Server, db: Db): { close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  serveUpgrade(server, {
    match: (pathname) => LIVE_VOICE_PATH.exec(pathname),
    handle: (req, socket, head, url, m) => {
      const realtime = realtimeConfig();
      if (!realtime) return refuseUpgrade(socket, 404, 'not found');
      const headers = { get: (name: string) => { const v = req.headers[name.toLowerCase()]; return Array.isArray(v) ? v.join(', ') : (v ?? null); } };
      void admitLiveVoice(db, m[1]!, url.searchParams.get('token') ?? '', headers)
        .then((a) => {
          if (!a.ok) return refuseUpgrade(socket, a.status, a.reason);
          wss.handleUpgrade(req, socket, head, (ws) => {
            runLiveVoice(db, ws, a, realtime).catch((err: unknown) => {
              logger.error({ err, chatId: a.chat.id }, 'voice: a live conversation failed');
              ws.close(1011, 'failed');
            });
          });
        })
        .catch((err: unknown) => {
          logger.error({ err }, 'voice: live voice admission failed');
          // A read that failed (the database away): the page may try again; nothing was opened.
          refuseUpgrade(socket, 503, 'try again');
        });
    },
  });
  const close = () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
  };
  server.once('close', close);
  return { close };
}
