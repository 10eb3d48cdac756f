import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/onboarding/mark-onboarded');
export const dynamic = 'force-dynamic';
