import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/assistants/check-email');
export const dynamic = 'force-dynamic';
