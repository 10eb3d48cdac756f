import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { applyTimeouts } from './outbound-timeouts';
import { addressAllowed, guardedLookup } from './outbound-url';

export type OutboundAnswer = { status: number; body: string } | { status: null; error: string };

/**
 * POSTs to a customer's URL under the outbound rule (outbound-url.ts) at connection time, with a
 * deadline, no redirects followed (a 3xx is an answer like any other) and at most 64 KiB of the
 * answer kept. Never throws: a refusal, a timeout or a reset is an answer with an error.
 */
export function postOutbound(url: URL, headers: Record<string, string>, body: string, opts: { allowVariable: string; timeoutMs: number }): Promise<OutboundAnswer> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is connected to without a lookup: judge it here.
    if (net.isIP(host) && !addressAllowed(host, opts.allowVariable)) {
      return resolve({ status: null, error: `refused: ${host} is inside the deployment's network` });
    }
    const send = url.protocol === 'https:' ? https.request : http.request;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'Steward-Webhooks/1', ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(opts.allowVariable),
        timeout: opts.timeoutMs,
      },
      (res) => {
        let kept = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (kept.length < 65536) kept += chunk.slice(0, 65536 - kept.length);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: kept }));
        res.on('error', (e) => resolve({ status: null, error: e.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    // Connecting and the whole exchange are bounded too (outbound-timeouts.ts), not only silence on the socket.
    applyTimeouts(req, opts.timeoutMs);
    req.on('error', (e) => resolve({ status: null, error: e.message }));
    req.end(body);
  });
}
