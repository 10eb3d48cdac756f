import { errorResponse, toResponse } from '@/server/http/kernel';
import { clientAddress } from '@/server/http/public-origin';
import type { RateLimits } from '@/server/http/rate-limit';
import { withApiHeaders } from '@/server/http/response-headers';
import { logger } from '@/server/logger';

type Handler<R extends Request, C> = (req: R, ctx: C) => Promise<Response>;
type Handlers<R extends Request, C> = { GET: Handler<R, C>; POST: Handler<R, C>; PUT: Handler<R, C> };

/**
 * Around the SDK's handlers of /api/inngest. The SDK refuses every unsigned call, PUT included
 * (enableUnauthedSync is off); each such 401 counts as a failed authentication for the client IP
 * (from Steward's front), and past the budget the refusal becomes 429. Signed calls are never
 * refused by the count: the executor calls from loopback, an address others may share.
 */
export function guardServeEndpoint<R extends Request, C>(handlers: Handlers<R, C>, limits: () => RateLimits): Handlers<R, C> {
  const guard =
    (method: keyof Handlers<R, C>): Handler<R, C> =>
    async (req, ctx) => {
      const res = await handlers[method](req, ctx);
      if (res.status !== 401) return res;
      try {
        await limits().countFailedAuthentication(clientAddress(req.headers));
        return res;
      } catch (e) {
        return withApiHeaders(toResponse(errorResponse(e, logger)), false);
      }
    };
  return { GET: guard('GET'), POST: guard('POST'), PUT: guard('PUT') };
}
