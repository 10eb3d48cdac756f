import { hostedTurnEvents } from '@/server/trpc/chat-stream';

/** Resuming the chat page's stream after a reload or a dropped connection (Last-Event-ID). */
export const GET = async (req: Request, { params }: { params: Promise<{ chatId: string; executionId: string }> }) => hostedTurnEvents(req, await params);
export const dynamic = 'force-dynamic';
