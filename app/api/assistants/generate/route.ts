import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/assistants/generate');
export const dynamic = 'force-dynamic';
