/**
 * What the kernel reads of a request. A Web `Request` is one; the lean node:http path
 * passes a lighter object so no Web streams are built per request.
 */
export type ApiRequest = {
  method: string;
  /** An absolute URL, or the request target's path (the lean server); handlers always see it absolute, on the public origin. */
  url: string;
  headers: Pick<Headers, 'get' | 'has'>;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  /**
   * Fires when the client goes away before the answer is complete (it closed the connection, or
   * aborted the Web Request), so a handler can stop work nobody will read: a stream, a long poll.
   */
  readonly signal: AbortSignal;
};

/** What the transport knows beside the request itself. */
export type RequestInfo = { clientIp?: string };
