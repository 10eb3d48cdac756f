import { InngestCommHandler, type ServeHandlerOptions } from 'inngest';
import type { LocalRequest } from './local-transport';

/**
 * The SDK's serve handler for the calls one process makes to itself (local-transport.ts): the
 * SDK's own request handling, fed from the request as `fetch` was given it. The Web adapter
 * (inngest/edge) needs a Web `Request`, whose construction and body stream were a tenth of a
 * resumption's CPU (the 10,000 wake-ups' profile, issue 47); here the SDK reads the method, the
 * URL, the headers it asks for and the text body directly. Everything the SDK decides (signature
 * checks, the function and step, the answer) is the same as for a call over the wire.
 */
export function localServe(options: ServeHandlerOptions): (req: LocalRequest) => Promise<Response> {
  const handler = new InngestCommHandler({
    // The Web adapter's name: the SDK tells the executor which framework serves the functions.
    frameworkName: 'edge',
    ...options,
    handler: (req: LocalRequest) => ({
      body: () => req.text(),
      headers: (key: string) => req.header(key),
      method: () => req.method,
      url: () => new URL(req.url),
      transformResponse: ({ body, status, headers }: { body: string; status: number; headers: Record<string, string> }) => new Response(body, { status, headers }),
    }),
  });
  return handler.createHandler() as (req: LocalRequest) => Promise<Response>;
}
