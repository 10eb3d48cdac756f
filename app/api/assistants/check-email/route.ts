import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/assistants/check-email');
export const dynamic = 'force-dynamic';
