import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Db } from '@/db/client';
import { claimsNode, forwardUpgrade, NODE_SIGNATURE, nodeLinkConfig, NodeUnreachable, verifyNodeCall } from '@/server/http/node-link';
import { refuseUpgrade as refuse, serveUpgrade } from '@/server/http/upgrades';
import { logger } from '@/server/logger';
import { admit, handoffOwner, LIVE_PATH } from './connect';
import { runLiveSession } from './session';
import { holderRefused, liveViewHolder, releaseIfIdle } from '@/server/workspace/nodes/follow';

/*
 * The handoff live view's WebSocket, served by the process's own
 * http.Server (scripts/start.ts attaches it in every mode: lean, dev, next) at
 * /api/workspace/live/{handoffId}?token=…. Only an admitted single-use token upgrades; any
 * other upgrade request on that path is answered with an HTTP status and closed (other paths:
 * server/http/upgrades.ts). The URL, which carries the
 * token, is never logged.
 *
 * In a deployment of several processes (STEWARD_NODE_URL) the view runs where the user's
 * browser runs: an upgrade that reaches another process is handed, as it came and signed with
 * STEWARD_NODE_SECRET, to the holder, which admits it (the token is spent there) and serves it.
 * An upgrade that claims to come from a process (X-Steward-Node-*) and cannot prove it is
 * refused. A holder that refuses the connection is gone: the view is served here, on a browser
 * started here.
 */

export function attachWorkspaceLive(server: http.Server, db: Db): { close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const link = nodeLinkConfig();

  const serveHere = async (req: http.IncomingMessage, socket: Duplex, head: Buffer, handoffId: string, token: string, owner?: { accountId: string; userId: string } | null) => {
    const headers = { get: (name: string) => { const v = req.headers[name.toLowerCase()]; return Array.isArray(v) ? v.join(', ') : (v ?? null); } };
    const a = await admit(db, handoffId, token, headers);
    if (!a.ok) {
      if (owner) await releaseIfIdle(owner.accountId, owner.userId);
      return refuse(socket, a.status, a.reason);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      runLiveSession(db, ws, a.handoff).catch((err: unknown) => {
        logger.error({ err, handoffId: a.handoff.id }, 'live view failed');
        ws.close(1011, 'failed');
      });
    });
  };

  /** Where the view is served: here, or at the process holding the user's browser. */
  const route = async (req: http.IncomingMessage, socket: Duplex, head: Buffer, handoffId: string, token: string) => {
    if (claimsNode(req.headers)) {
      const signature = req.headers[NODE_SIGNATURE];
      if (!link || !verifyNodeCall(link.secret, Array.isArray(signature) ? signature[0] : signature, 'GET', req.url ?? '/')) {
        return refuse(socket, 401, 'calls between Steward processes must be signed with STEWARD_NODE_SECRET');
      }
      return serveHere(req, socket, head, handoffId, token);
    }
    const owner = link ? await handoffOwner(db, handoffId) : null;
    for (let attempt = 0; owner && attempt < 3; attempt++) {
      let holder: Awaited<ReturnType<typeof liveViewHolder>>;
      try {
        holder = await liveViewHolder(owner.accountId, owner.userId);
      } catch {
        return refuse(socket, 503, 'the process running this workspace is not answering; retry in a few seconds');
      }
      if (!holder) break;
      try {
        return await forwardUpgrade(link!, holder.url, req, socket, head);
      } catch (e) {
        if (!(e instanceof NodeUnreachable && e.refused)) return refuse(socket, 503, 'the process running this workspace is not answering; retry in a few seconds');
        // Gone: the next look finds nobody (or whoever took it over meanwhile).
        await holderRefused(holder.nodeId);
      }
    }
    return serveHere(req, socket, head, handoffId, token, owner);
  };

  serveUpgrade(server, {
    match: (pathname) => LIVE_PATH.exec(pathname),
    handle: (req, socket, head, url, m) =>
      void route(req, socket, head, m[1]!, url.searchParams.get('token') ?? '').catch((err: unknown) => {
        logger.error({ err }, 'live view: admission failed');
        refuse(socket, 500, 'unexpected failure');
      }),
  });
  const close = () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
  };
  server.once('close', close);
  return { close };
}
