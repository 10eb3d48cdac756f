import type http from 'node:http';
import { WebSocketServer } from 'ws';
import type { Db } from '@/db/client';
import { realtimeConfig } from '@/server/channels/realtime/config';
import { twilioWebhookConfig } from '@/server/channels/twilio/config';
import { refuseUpgrade, serveUpgrade } from '@/server/http/upgrades';
import { logger } from '@/server/logger';
import { runMediaStream } from './voice-bridge';
import { MEDIA_PATH } from './voice-calls';

/*
 * Twilio's media streams (spec 6, Voice conversations) reach
 * wss://<public>/api/channels/twilio/media on the process's own http.Server (scripts/start.ts
 * attaches it in every mode; server/http/upgrades.ts routes upgrades by path). The upgrade itself
 * carries no credential (Twilio passes no query string on a stream URL): each stream is admitted by the
 * signed token in its start message (server/messaging/voice-bridge.ts). Without Twilio's Auth
 * Token or a realtime model the path answers 404, like the voice webhooks. One stream is one call:
 * a frame is at most 64 KiB (Twilio sends 20 ms of audio, about 200 bytes of base64, a frame).
 */

export function attachVoiceMedia(server: http.Server, db: Db): { close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  serveUpgrade(server, {
    match: (pathname) => (pathname === MEDIA_PATH ? [pathname] : null),
    handle: (req, socket, head) => {
      const realtime = realtimeConfig();
      if (!realtime || !twilioWebhookConfig()) return refuseUpgrade(socket, 404, 'not found');
      wss.handleUpgrade(req, socket, head, (ws) => {
        runMediaStream(db, ws, { realtime }).catch((err: unknown) => {
          logger.error({ err }, 'voice: a media stream failed');
          ws.close(1011, 'failed');
        });
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
