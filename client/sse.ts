/** One server-sent event as it came over the wire (data still text). */
export type SseFrame = { id: string | null; event: string; data: string };

/**
 * Reads `text/event-stream` frames: `id:`, `event:` and `data:` lines (several data lines are
 * joined with newlines), comment lines (`: heartbeat`) skipped, a blank line ends a frame.
 */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: { id: string | null; event: string; data: string[] } = { id: null, event: 'message', data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A CR ending the chunk may be the first half of a CRLF still on its way.
        if (buffer[nl] === '\r' && nl === buffer.length - 1) break;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer[nl] === '\r' && buffer[nl + 1] === '\n' ? 2 : 1));
        if (line === '') {
          if (frame.data.length) yield { id: frame.id, event: frame.event, data: frame.data.join('\n') };
          frame = { id: null, event: 'message', data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') frame.data.push(val);
        else if (field === 'event') frame.event = val;
        else if (field === 'id' && !val.includes('\0')) frame.id = val;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
