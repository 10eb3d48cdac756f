import http from 'node:http';

/**
 * Hands a request to another local HTTP server (Next.js in its own process) and streams the
 * answer back. The Host header is kept (accounts are chosen by it); X-Forwarded-For names the client.
 */
export function proxyTo(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    // X-Forwarded-For names the client: a value the client sent counts only behind a trusted proxy
    // (TRUST_PROXY=1), else per-IP limits in the Next process could be dodged by sending one.
    const headers = { ...req.headers };
    if (process.env.TRUST_PROXY !== '1' || !headers['x-forwarded-for']) headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('The web app is not answering yet; retry in a moment.');
    });
    req.pipe(upstream);
  };
}
