import { trpcHandler } from '@/server/trpc/handler';

export { trpcHandler as GET, trpcHandler as POST };
export const dynamic = 'force-dynamic';
