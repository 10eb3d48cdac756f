import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/app-router';

type Out = inferRouterOutputs<AppRouter>['organizations'];
export type Organization = Out['get']['organization'];
export type OrgMember = Out['members']['members'][number];
export type OrgDomain = Out['domains']['domains'][number];
export type SsoSettings = Out['sso'];
