import type http from 'node:http';
import type { Duplex } from 'node:stream';

/*
 * WebSocket upgrades on the process's own http.Server (the handoff live view, Twilio's media
 * streams): one 'upgrade' listener per server hands each request to the route whose path it
 * matches, so a route never needs to know the others' paths. A request no route takes is left to
 * another listener (Next's development server adds one); with none, it is closed as Node would.
 */

export type UpgradeRoute = {
  /** Whether the path is this route's: null, or what it matched (a RegExp's groups) to hand on. */
  match: (pathname: string) => readonly string[] | null;
  handle: (req: http.IncomingMessage, socket: Duplex, head: Buffer, url: URL, match: readonly string[]) => void;
};

const routesOf = new WeakMap<http.Server, UpgradeRoute[]>();

/** Serves `route` on `server`'s upgrades, beside any route served there before. */
export function serveUpgrade(server: http.Server, route: UpgradeRoute): void {
  let routes = routesOf.get(server);
  if (!routes) {
    const list: UpgradeRoute[] = [];
    routes = list;
    routesOf.set(server, list);
    const listener = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(req.url ?? '/', 'http://upgrade.invalid');
      for (const r of list) {
        const m = r.match(url.pathname);
        if (!m) continue;
        socket.on('error', () => socket.destroy());
        return r.handle(req, socket, head, url, m);
      }
      if (server.listenerCount('upgrade') === 1) socket.destroy();
    };
    server.on('upgrade', listener);
  }
  routes.push(route);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  410: 'Gone',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Answers an upgrade with an HTTP status and a JSON body, and closes it (503 asks to retry in 5 s). */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const body = JSON.stringify({ ok: false, status, error: reason });
  const retry = status === 503 ? 'Retry-After: 5\r\n' : '';
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\n${retry}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}
