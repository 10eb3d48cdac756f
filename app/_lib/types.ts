import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/app-router';

/** The shapes the pages show, straight from the routers (and so from the services' Zod and Drizzle types). */
export type Out = inferRouterOutputs<AppRouter>;
export type Task = Out['tasks']['get']['task'];
export type TaskSummary = Out['tasks']['list']['tasks'][number];
export type Activity = Out['tasks']['activities']['activities'][number];
export type NeedsMeItem = Out['inbox']['list']['items'][number];
export type Chat = Out['chats']['get']['chat'];
export type ChatMessage = Out['chats']['messages']['messages'][number];
export type Handoff = Out['handoffs']['list']['handoffs'][number];
export type SentCart = Out['sent']['list']['carts'][number];
export type Snapshot = Out['sent']['snapshots']['snapshots'][number];
export type Identifier = Out['identifiers']['list']['identifiers'][number];
export type TaintSource = TaskSummary['taintSources'][number];
