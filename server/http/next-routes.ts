import { sharedDatabase } from '@/db/client';
import { endpoints } from '@/server/endpoints';
import { createApiHandler, createKernelDeps, type ApiHandler } from './kernel';

let handler: ApiHandler | undefined;
const kernel = () => (handler ??= createApiHandler(endpoints, createKernelDeps(sharedDatabase())));

/**
 * What an `app/api/.../route.ts` file exports: one Web handler per method the
 * registry declares at that path. The kernel routes by URL, so every method shares it.
 */
export function routeHandlers(path: string): Record<string, (req: Request) => Promise<Response>> {
  const methods = endpoints.filter((e) => e.path === path).map((e) => e.method);
  if (methods.length === 0) throw new Error(`No endpoint registered at ${path}`);
  const serve = (req: Request) => kernel()(req);
  return Object.fromEntries(methods.map((m) => [m, serve]));
}
