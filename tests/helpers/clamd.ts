import { createServer, type AddressInfo, type Socket } from 'node:net';
import { simpleParser } from 'mailparser';

/**
 * A real clamd on loopback, for the inbound mail checks: it speaks clamd's protocol (`zPING`,
 * `zINSTREAM` with 4-byte big-endian length-prefixed chunks ended by a zero length; answers
 * NUL-terminated for z-commands, newline-terminated for n-commands, then it closes). Like clamd
 * it reads a mail message part by part (MIME decoded), and its one signature is the EICAR test
 * file, named as ClamAV names it. A stream past `maxStreamBytes` gets clamd's size-limit error.
 */
export const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
const SIGNATURE = 'Win.Test.EICAR_HDB-1';

async function scan(stream: Buffer): Promise<string | null> {
  if (stream.includes(EICAR)) return SIGNATURE;
  try {
    const mail = await simpleParser(stream);
    const parts = [mail.text ?? '', ...mail.attachments.map((a) => a.content.toString('latin1'))];
    return parts.some((p) => p.includes(EICAR)) ? SIGNATURE : null;
  } catch {
    return null;
  }
}

export async function startFakeClamd(opts: { maxStreamBytes?: number } = {}) {
  const maxStream = opts.maxStreamBytes ?? 25 * 1024 * 1024;
  const scanned: Buffer[] = [];
  const sockets = new Set<Socket>();
  // Half-open, as the daemons are: the client closes its side once the request is written.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = Buffer.alloc(0);
    let command: { name: string; end: string } | null = null;
    const chunks: Buffer[] = [];
    let streamed = 0;
    let done = false;
    const reply = (text: string) => {
      done = true;
      socket.end(`${text}${command?.end ?? '\0'}`);
    };
    socket.on('data', async (chunk: Buffer) => {
      if (done) return;
      buffer = Buffer.concat([buffer, chunk]);
      if (!command) {
        const z = buffer[0] === 0x7a;
        const end = buffer.indexOf(z ? 0 : 0x0a);
        if (end < 0) return;
        command = { name: buffer.subarray(1, end).toString('latin1'), end: z ? '\0' : '\n' };
        buffer = buffer.subarray(end + 1);
        if (command.name === 'PING') return reply('PONG');
        if (command.name !== 'INSTREAM') return reply('UNKNOWN COMMAND');
      }
      while (buffer.length >= 4) {
        const size = buffer.readUInt32BE(0);
        if (size === 0) {
          const stream = Buffer.concat(chunks);
          scanned.push(stream);
          const found = await scan(stream);
          return reply(found ? `stream: ${found} FOUND` : 'stream: OK');
        }
        if (buffer.length < 4 + size) return;
        chunks.push(buffer.subarray(4, 4 + size));
        streamed += size;
        buffer = buffer.subarray(4 + size);
        if (streamed > maxStream) return reply('INSTREAM size limit exceeded. ERROR');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `tcp://127.0.0.1:${port}`,
    /** Every stream it was given, whole. */
    scanned,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
