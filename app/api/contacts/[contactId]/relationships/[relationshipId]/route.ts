import { routeHandlers } from '@/server/route-handlers';

export const { DELETE } = routeHandlers('/contacts/{contactId}/relationships/{relationshipId}');
export const dynamic = 'force-dynamic';
