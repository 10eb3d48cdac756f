import { hostedDownload } from '@/server/trpc/file-download';

/** A file of the signed-in person, downloaded from the Files page (GET /api/drive-files/{fileId}/download's service). */
export const GET = async (req: Request, { params }: { params: Promise<{ fileId: string }> }) => hostedDownload(req, (await params).fileId);
export const dynamic = 'force-dynamic';
