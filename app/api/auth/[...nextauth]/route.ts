import { portalAuth } from '@/server/sign-in/next-auth-handler';

export { portalAuth as GET, portalAuth as POST };
export const dynamic = 'force-dynamic';
