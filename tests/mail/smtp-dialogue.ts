import { connect, type Socket } from 'node:net';

/**
 * A bare SMTP client for tests that need the server's exact replies (codes a mail library would
 * turn into a generic error): each `say` sends one command and resolves with the whole reply.
 */
const open = new Set<Socket>();

/** Ends every dialogue still open (a listener closes only once its connections have). */
export function closeDialogues(): void {
  for (const socket of open) socket.destroy();
  open.clear();
}

export async function smtpDialogue(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  open.add(socket);
  socket.on('close', () => open.delete(socket));
  let buffer = '';
  const waiting: Array<(reply: string) => void> = [];
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    // A reply ends with a line "NNN text" (a space after the code; "NNN-" continues it).
    for (let m = /(^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(buffer); m && waiting.length; m = /(^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(buffer)) {
      const end = m.index + m[0].length;
      const reply = buffer.slice(0, end);
      buffer = buffer.slice(end);
      waiting.shift()!(reply.trim());
    }
  });
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const greeting = await next();
  return {
    greeting,
    say: (line: string) => {
      const reply = next();
      socket.write(`${line}\r\n`);
      return reply;
    },
    /** DATA's body: dot-stuffed and ended with <CRLF>.<CRLF>. */
    data: (message: string) => {
      const reply = next();
      const body = message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
      socket.write(`${body}${body.endsWith('\r\n') ? '' : '\r\n'}.\r\n`);
      return reply;
    },
    close: () => socket.destroy(),
  };
}
