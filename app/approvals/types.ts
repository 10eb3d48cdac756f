import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/app-router';

type Out = inferRouterOutputs<AppRouter>['approvals'];
export type Cart = Out['get']['cart'];
export type Dispatch = Cart['dispatches'][number];
export type CartStatus = Cart['status'];
