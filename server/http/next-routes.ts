import type { AnyEndpoint } from './endpoint';
import { createApiHandler, type ApiHandler } from './kernel';
import type { KernelDeps } from './kernel-deps';

export type RouteHandlers = Record<string, (req: Request) => Promise<Response>>;

/**
 * What the `app/api/.../route.ts` files export, for a registry: one Web handler per method the
 * registry declares at a path. The kernel routes by URL, so every method shares it; it is built
 * at the first request (Next imports route files while building). The Web Request's signal
 * reaches handlers as `ctx.signal`, and Response bodies go back to Next as they are, streams too.
 */
export function nextRouteHandlers(endpoints: AnyEndpoint[], deps: () => KernelDeps): (path: string) => RouteHandlers {
  let handler: ApiHandler | undefined;
  const kernel = () => (handler ??= createApiHandler(endpoints, deps()));
  return (path) => {
    const methods = endpoints.filter((e) => e.path === path).map((e) => e.method);
    if (methods.length === 0) throw new Error(`No endpoint registered at ${path}`);
    const serve = (req: Request) => kernel()(req);
    return Object.fromEntries(methods.map((m) => [m, serve]));
  };
}
