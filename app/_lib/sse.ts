/*
 * Reading a text/event-stream answer of fetch (the chat turn's stream): fetch rather than
 * EventSource, because the turn starts with a POST and a resumed stream must carry Last-Event-ID
 * chosen by the page (what it kept across a reload), which EventSource cannot be told.
 */

export type StreamEvent = { id: number | null; event: string; data: unknown };

/** Calls `onEvent` for each event as it arrives; resolves when the stream ends, rejects if it breaks. */
export async function readEvents(res: Response, onEvent: (e: StreamEvent) => void, signal?: AbortSignal): Promise<void> {
  if (!res.body) throw new Error('The stream has no body');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const abort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', abort, { once: true });
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n/g, '\n');
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e = parseBlock(block);
        if (e) onEvent(e);
      }
    }
  } finally {
    signal?.removeEventListener('abort', abort);
  }
}

/** One event block: comment lines (heartbeats) are skipped; data lines are JSON. */
function parseBlock(block: string): StreamEvent | null {
  let id: number | null = null;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = Number(value);
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (!data.length) return null;
  try {
    return { id, event, data: JSON.parse(data.join('\n')) };
  } catch {
    return { id, event, data: data.join('\n') };
  }
}
