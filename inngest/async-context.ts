import type { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The SDK tracks which run a step belongs to with one AsyncLocalStorage, kept on a global symbol
 * (inngest/components/execution/als.js). On Node 20 a storage, once it has run anything, leaves
 * async hooks on for the life of the process: every promise of every API request then pays for
 * context it never reads (measured: GET /api/me took 68 µs of CPU with them on, 49 µs off).
 *
 * `releasedBetweenRuns` turns the storage off again whenever no call of the serve endpoint is in
 * flight in this process. The SDK runs a function only inside such a call (it answers once the
 * step is done: it does not stream), and its own next `run` turns the storage back on, so a
 * run never misses its context. Should a later SDK keep the storage elsewhere, nothing is
 * turned off and only the speed is lost.
 */
const STORE = Symbol.for('inngest:als');

type SdkCache = { resolved?: Pick<AsyncLocalStorage<unknown>, 'disable'> };

let inFlight = 0;

/** The SDK's storage when it is a real AsyncLocalStorage (not its fallback), else null. */
function sdkStorage(): SdkCache['resolved'] | null {
  const cache = (globalThis as Record<symbol, SdkCache | undefined>)[STORE];
  const als = cache?.resolved;
  return als && typeof als.disable === 'function' ? als : null;
}

export function releasedBetweenRuns<A extends unknown[]>(handler: (...args: A) => Promise<Response>): (...args: A) => Promise<Response> {
  return async (...args) => {
    inFlight++;
    try {
      return await handler(...args);
    } finally {
      if (--inFlight === 0) sdkStorage()?.disable();
    }
  };
}

/** For tests: whether the SDK's storage is on (Node's own flag on the storage). */
export function sdkStorageEnabled(): boolean {
  const als = sdkStorage() as { enabled?: boolean } | null;
  return als?.enabled === true;
}
