import { readOrNotFound, requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { ChatView } from './chat-view';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Chat · Steward' };

const PER_PAGE = 100;

/** One chat with the assistant: the latest messages, and the pinned composer whose turn streams. */
export default async function ChatPage({ params }: { params: Promise<{ chatId: string }> }) {
  const { chatId } = await params;
  const { api, me } = await requireSignedIn(`/chats/${chatId}`);
  const { chat } = await readOrNotFound(api.chats.get({ chatId }));
  // The newest page of messages (they list oldest first), and the turn still running if any.
  const last = Math.max(1, Math.ceil(chat.messageCount / PER_PAGE));
  const [{ messages }, open, voice, realtime] = await Promise.all([
    api.chats.messages({ chatId, page: last, perPage: PER_PAGE }),
    api.chats.openTurn({ chatId }),
    api.voice.providers(),
    api.voice.liveAvailable(),
  ]);
  // Live voice needs both halves of the audio API: what the person says heard, the reply spoken.
  const live = voice.providers.some((p) => p.provider === 'openai' && p.capabilities.transcription && p.capabilities.speech);
  const assistant = chat.assistantInfo.name ?? 'your assistant';
  return (
    <HostedFrame me={me} title={chat.title ?? `Chat with ${assistant}`} description={`With ${assistant}${chat.platform === 'chat' ? '' : ` · ${chat.platform}`}${last > 1 ? ` · earlier messages are not shown` : ''}`}>
      <ChatView chat={chat} initialMessages={messages} openTurn={open} voice={live} live={realtime.available} me={me.user.name ?? me.user.email} />
    </HostedFrame>
  );
}
