import type { ReactNode } from 'react';
import { renderToReadableStream } from 'react-dom/server';

/**
 * A page (or any element) rendered to HTML the way Next renders a server page: async components
 * (the hosted frame reads the person's counts) are awaited, not refused as a synchronous render
 * would refuse them.
 */
export async function renderHtml(element: ReactNode): Promise<string> {
  const stream = await renderToReadableStream(element);
  await stream.allReady;
  return new Response(stream).text();
}
