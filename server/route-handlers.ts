import { sharedDatabase } from '@/db/client';
import { credentials } from '@/server/credentials';
import { endpoints } from '@/server/endpoints';
import { createKernelDeps } from '@/server/http/kernel-deps';
import { nextRouteHandlers } from '@/server/http/next-routes';
import { composeRuntime } from '@/server/compose';

// The process Next.js serves the API in (STEWARD_HTTP=next) composes the runtime on first load.
composeRuntime();

/**
 * The kernel as the generated route files (app/api/.../route.ts, STEWARD_HTTP=next) reach it:
 * every endpoint and credential, over the process's shared database.
 */
export const routeHandlers = nextRouteHandlers(endpoints, () => createKernelDeps(sharedDatabase(), credentials));
