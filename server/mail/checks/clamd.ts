import { converse, type DaemonTarget } from './daemon-socket';

/*
 * A client of ClamAV's clamd: `zINSTREAM\0`, then the message in chunks each preceded by its
 * length (4 bytes, big-endian), then a zero length; clamd answers `stream: OK\0` or
 * `stream: <Signature> FOUND\0`, or `... ERROR\0` (its StreamMaxLength exceeded, say). The raw
 * message is sent: clamd decodes MIME mail itself and scans each part.
 */

export type VirusVerdict = { infected: false } | { infected: true; signature: string };

const CHUNK_BYTES = 64 * 1024;

export class ClamdError extends Error {}

/** clamd's NUL-terminated answer to one INSTREAM. */
export function parseClamdAnswer(answer: string): VirusVerdict {
  const line = answer.replace(/\0[\s\S]*$/, '').trim();
  if (/^stream: OK$/.test(line)) return { infected: false };
  const found = /^stream: (.+) FOUND$/.exec(line);
  if (found) return { infected: true, signature: found[1].trim() };
  throw new ClamdError(line ? `clamd answered "${line.slice(0, 200)}"` : 'clamd closed the connection without an answer');
}

/** Has clamd scan `message`. */
export async function clamdScan(target: DaemonTarget, message: Buffer): Promise<VirusVerdict> {
  const answer = await converse(
    target,
    (socket) => {
      socket.write('zINSTREAM\0');
      for (let at = 0; at < message.length; at += CHUNK_BYTES) {
        const chunk = message.subarray(at, at + CHUNK_BYTES);
        const size = Buffer.alloc(4);
        size.writeUInt32BE(chunk.length);
        socket.write(size);
        socket.write(chunk);
      }
      socket.write(Buffer.alloc(4));
    },
    // The answer ends with its NUL; clamd closes after it, but the NUL is enough to stop waiting.
    (answer) => answer.includes(0),
  );
  return parseClamdAnswer(answer.toString('utf8'));
}
