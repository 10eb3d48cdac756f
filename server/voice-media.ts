import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Db } from '@/db/client';
import { realtimeConfig } from '@/server/channels/realtime/config';
import { twilioWebhookConfig } from '@/server/channels/twilio/config';
import { logger } from '@/server/logger';
import { runMediaStream } from '@/server/messaging/voice-bridge';
import { MEDIA_PATH } from '@/server/messaging/voice-calls';
import { LIVE_PATH } from '@/server/workspace/live/connect';

/*
 * Composition (entry floor): Twilio's media streams (spec 6, Voice conversations) reach
 * wss://<public>/api/channels/twilio/media on the process's own http.Server (scripts/start.ts
 * attaches it in every mode, beside the live view's WebSocket). The upgrade itself carries no
 * credential (Twilio passes no query string on a stream URL): each stream is admitted by the
 * signed token in its start message (server/messaging/voice-bridge.ts). Without Twilio's Auth
 * Token or a realtime model the path answers 404, like the voice webhooks. One stream is one call:
 * a frame is at most 64 KiB (Twilio sends 20 ms of audio, about 200 bytes of base64, a frame).
 */

function refuse(socket: Duplex, status: 404 | 500) {
  const body = JSON.stringify({ ok: false, status, error: status === 404 ? 'not found' : 'unexpected failure' });
  socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Internal Server Error'}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

export function attachVoiceMedia(server: http.Server, db: Db): { close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://media.invalid');
    if (url.pathname !== MEDIA_PATH) {
      // Neither ours nor the live view's, and no other listener (Next's development server): close it as Node would.
      if (!LIVE_PATH.test(url.pathname) && server.listenerCount('upgrade') <= 2) socket.destroy();
      return;
    }
    socket.on('error', () => socket.destroy());
    const realtime = realtimeConfig();
    if (!realtime || !twilioWebhookConfig()) return refuse(socket, 404);
    wss.handleUpgrade(req, socket, head, (ws) => {
      runMediaStream(db, ws, { realtime }).catch((err: unknown) => {
        logger.error({ err }, 'voice: a media stream failed');
        ws.close(1011, 'failed');
      });
    });
  });
  const close = () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
  };
  server.once('close', close);
  return { close };
}
