import { createServer, type AddressInfo, type Socket } from 'node:net';
import { simpleParser } from 'mailparser';

/**
 * A real spamd on loopback, for the inbound mail checks: it speaks SPAMC/SPAMD as SpamAssassin's
 * spamd does (a request line `CHECK SPAMC/1.5`, headers, the message of Content-length bytes;
 * the answer `SPAMD/1.1 0 EX_OK` with `Spam: True ; <score> / <threshold>`, then it closes). Its
 * only rule is SpamAssassin's own test rule: a message whose body (decoded, as SpamAssassin
 * renders it) carries the GTUBE string is spam, with the score 1000 SpamAssassin gives it. `hang` makes it read and never answer (a stuck daemon).
 */
export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';
const THRESHOLD = 5.0;

async function hasGtube(message: string): Promise<boolean> {
  if (message.includes(GTUBE)) return true;
  try {
    const mail = await simpleParser(message);
    return (mail.text ?? '').includes(GTUBE);
  } catch {
    return false;
  }
}

export type SpamdRequest = { command: string; version: string; headers: Record<string, string>; message: string };

export async function startFakeSpamd(opts: { hang?: boolean } = {}) {
  const requests: SpamdRequest[] = [];
  const sockets = new Set<Socket>();
  // Half-open, as the daemons are: the client closes its side once the request is written.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = Buffer.alloc(0);
    let answered = false;
    /** The whole request has been read (it is answered once, whichever of data or end completes it). */
    let read = false;
    const answer = (text: string) => {
      if (answered) return;
      answered = true;
      socket.end(text);
    };
    const attempt = async (ended: boolean) => {
      if (read) return;
      const headEnd = buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return ended ? answer('SPAMD/1.0 76 Bad header line: (EOF before the end of the headers)\r\n') : undefined;
      const [requestLine, ...headerLines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
      const m = /^([A-Z_]+) SPAMC\/(\d+\.\d+)$/.exec(requestLine);
      if (!m) return answer(`SPAMD/1.0 76 Bad header line: ${requestLine}\r\n`);
      if (m[1] === 'PING') return answer('SPAMD/1.5 0 PONG\r\n');
      const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length']);
      if (!Number.isInteger(length)) return answer('SPAMD/1.0 76 Bad header line: (Content-length missing)\r\n');
      const body = buffer.subarray(headEnd + 4);
      if (body.length < length) return ended ? answer('SPAMD/1.0 76 Bad header line: (Content-Length mismatch)\r\n') : undefined;
      read = true;
      const message = body.subarray(0, length).toString('utf8');
      requests.push({ command: m[1], version: m[2], headers, message });
      if (opts.hang) return;
      const spam = await hasGtube(message);
      const status = `Spam: ${spam ? 'True' : 'False'} ; ${spam ? '1000.0' : '0.1'} / ${THRESHOLD.toFixed(1)}`;
      if (m[1] === 'CHECK') return answer(`SPAMD/1.1 0 EX_OK\r\nContent-length: 0\r\n${status}\r\n\r\n`);
      if (m[1] === 'SYMBOLS') {
        const symbols = spam ? 'GTUBE' : '';
        return answer(`SPAMD/1.1 0 EX_OK\r\nContent-length: ${symbols.length}\r\n${status}\r\n\r\n${symbols}`);
      }
      return answer(`SPAMD/1.0 76 Bad header line: (unknown method ${m[1]})\r\n`);
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      void attempt(false);
    });
    socket.on('end', () => void attempt(true));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `spamd://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
