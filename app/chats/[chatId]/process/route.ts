import { hostedChatProcess } from '@/server/trpc/chat-stream';

/** The chat page's turn: the same stream as POST /api/chats/{chatId}/process, for the signed-in person. */
export const POST = async (req: Request, { params }: { params: Promise<{ chatId: string }> }) => hostedChatProcess(req, await params);
export const dynamic = 'force-dynamic';
