import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/onboarding/mark-onboarded');
export const dynamic = 'force-dynamic';
