import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { applyTimeouts } from '@/server/http/outbound-timeouts';
import { addressAllowed, guardedLookup } from '@/server/http/outbound-url';

/*
 * One GET of a file a provider holds for a message (a Slack file, a Teams attachment), its bytes
 * read with a cap: the guarded provider request (slack/provider-http.ts) reads answers as text and
 * keeps only their first 2 MB, which would mangle or cut a file. Under the same address rule as
 * every provider call (`allowEnv`: STEWARD_PROVIDER_ALLOWED_RANGES), bounded in connecting, in
 * silence and in total by `timeoutMs`. A redirect is returned, never followed: the caller judges
 * where it points (and whether its credential may go there). A file larger than `maxBytes`, by
 * its declared length or as it arrives, ends the download at once: never read whole.
 */

/** The most Steward takes of files a person sends on a chat channel: the size of the largest mail it takes in (server/mail). */
export const INBOUND_FILES_BYTES = 25 * 1024 * 1024;

export type CappedAnswer =
  | { status: 200; contentType: string | null; body: Buffer }
  | { status: number; location: string | null }
  | { problem: string };

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

export function cappedGet(url: URL, o: { headers: Record<string, string>; maxBytes: number; timeoutMs: number; allowEnv: string; tooLarge: string }): Promise<CappedAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (a: CappedAnswer) => {
      if (settled) return;
      settled = true;
      resolve(a);
    };
    const host = hostOf(url);
    // An IP literal is connected to without a lookup: judged here (guardedLookup judges names).
    if (net.isIP(host) && !addressAllowed(host, o.allowEnv)) return done({ problem: `${host} is inside the deployment's network (allow it with ${o.allowEnv})` });
    const send = url.protocol === 'https:' ? https.request : http.request;
    const req = send(url, { method: 'GET', headers: { 'User-Agent': 'Steward', ...o.headers }, lookup: guardedLookup(o.allowEnv), timeout: o.timeoutMs }, (res) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        res.resume();
        return done({ status, location: (res.headers.location as string | undefined) ?? null });
      }
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > o.maxBytes) {
        req.destroy();
        return done({ problem: o.tooLarge });
      }
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > o.maxBytes) {
          req.destroy();
          return done({ problem: o.tooLarge });
        }
        parts.push(c);
      });
      res.on('end', () => {
        if (Number.isFinite(declared) && size !== declared) return done({ problem: 'the file did not arrive whole' });
        done({ status: 200, contentType: (res.headers['content-type'] as string | undefined) ?? null, body: Buffer.concat(parts) });
      });
      res.on('error', (e) => done({ problem: `the download was cut: ${e.message}` }));
      // After 'end' this changes nothing; before it, the answer stopped short.
      res.on('close', () => done({ problem: 'the download was cut' }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${o.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    // Connecting and the whole download are bounded too, not only silence on the socket.
    applyTimeouts(req, o.timeoutMs);
    req.on('error', (e) => done({ problem: `the file could not be fetched: ${e.message}` }));
    req.end();
  });
}
