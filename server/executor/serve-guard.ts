import { clientAddress } from '@/server/http/public-origin';
import type { RateLimits } from '@/server/http/rate-limit';
import { errorResponse, toResponse } from '@/server/http/reply';
import { withApiHeaders } from '@/server/http/response-headers';
import { logger } from '@/server/logger';
import { LocalRequest } from './local-transport';

/**
 * Around the SDK's handler of /api/inngest. The SDK refuses every unsigned call, PUT included
 * (enableUnauthedSync is off); each such 401 counts as a failed authentication for the client IP,
 * and past the budget the refusal becomes 429. Signed calls are never refused by the count: the
 * executor calls from loopback, an address others may share.
 *
 * The client IP is the socket's when the kernel's own server serves the endpoint (`clientIp`),
 * or what Steward's front decided (X-Forwarded-For) when the Next.js route file does.
 */
export function countRefusedCalls<R extends Request | LocalRequest>(handler: (req: R) => Promise<Response>, limits: () => RateLimits) {
  return async (req: R, clientIp?: string): Promise<Response> => {
    const res = await handler(req);
    if (res.status !== 401) return res;
    try {
      // A call this process made to itself (local-transport.ts) has its headers built only here.
      await limits().countFailedAuthentication(clientAddress(req instanceof LocalRequest ? req.request().headers : req.headers, clientIp));
      return res;
    } catch (e) {
      return withApiHeaders(toResponse(errorResponse(e, logger)), false);
    }
  };
}
