import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/app-router';

type Out = inferRouterOutputs<AppRouter>['teams'];
export type TeamMember = Out['members']['members'][number];
export type TeamPolicy = Out['policy'];
export type TeamJoinRequest = Out['joinRequests']['joinRequests'][number];
