import { converse, type DaemonTarget } from './daemon-socket';

/*
 * A client of SpamAssassin's spamd (the SPAMC/1.5 protocol, as spamc speaks it): one `CHECK`
 * per connection, the message after a Content-length header, the writing side closed, and
 * spamd's answer `SPAMD/1.1 0 EX_OK` with a header `Spam: True ; 15.2 / 5.0` (verdict, score,
 * the threshold spamd is configured with). The verdict is spamd's: Steward keeps no threshold.
 */

export type SpamVerdict = { spam: boolean; score: number; threshold: number };

/**
 * Larger messages are not sent, as spamc does not send them by default (its `-s` limit): spam is
 * small, and scanning a large message takes spamd longer than the SMTP client should wait.
 */
export const MAX_SPAM_CHECK_BYTES = 512_000;

export class SpamdError extends Error {}

/** spamd's answer: the status line, then header lines up to an empty line. */
export function parseSpamdAnswer(answer: string): SpamVerdict {
  if (!answer.trim()) throw new SpamdError('spamd closed the connection without an answer');
  const [status = '', ...lines] = answer.split(/\r?\n/);
  const head = /^SPAMD\/\d+\.\d+\s+(\d+)\s*(.*)$/.exec(status.trim());
  if (!head) throw new SpamdError(`spamd gave no SPAMD status line (it said "${status.slice(0, 100)}")`);
  if (head[1] !== '0') throw new SpamdError(`spamd answered ${head[1]} ${head[2]}`.trim());
  for (const line of lines) {
    if (!line.trim()) break;
    const m = /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?\d+(?:\.\d+)?)\s*\/\s*(-?\d+(?:\.\d+)?)\s*$/i.exec(line.trim());
    if (m) return { spam: /^(true|yes)$/i.test(m[1]), score: Number(m[2]), threshold: Number(m[3]) };
  }
  throw new SpamdError('spamd answered without a Spam header');
}

/** Asks spamd whether `message` (the raw message, with the headers this server adds) is spam. */
export async function spamdCheck(target: DaemonTarget, message: Buffer): Promise<SpamVerdict> {
  if (message.length > MAX_SPAM_CHECK_BYTES) throw new SpamdError(`not checked: the message is larger than ${MAX_SPAM_CHECK_BYTES} bytes`);
  const answer = await converse(target, (socket) => {
    socket.write(`CHECK SPAMC/1.5\r\nContent-length: ${message.length}\r\n\r\n`);
    // spamd reads to the Content-length; closing our side as spamc does tells it nothing more comes.
    socket.end(message);
  });
  return parseSpamdAnswer(answer.toString('latin1'));
}
