'use client';
import { ListPlus, Paperclip, SendHorizontal } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import { readEvents, type StreamEvent } from '@/app/_lib/sse';
import type { Chat, ChatMessage } from '@/app/_lib/types';
import type { Attached } from '@/app/_lib/upload';
import { AttachedList, DropZone, FilePicker, useUploads } from '@/app/_ui/attach';
import { Avatar } from '@/app/_ui/avatar';
import { Button } from '@/app/_ui/button';
import { cn } from '@/app/_ui/cn';
import { Time } from '@/app/_ui/time';
import { useNotify } from '@/app/_ui/toast';
import { applyEvent, loadTurn, previewOf, saveTurn, type Turn } from './turn-state';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { LiveTalk } from './live-talk';
import { VoiceButton, type VoiceState } from './voice-button';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PLATFORM: Record<string, string> = { chat: '', voice: 'spoken', email: 'by email', slack: 'on Slack', teams: 'on Teams', sms: 'by text', whatsapp: 'on WhatsApp', imessage: 'on iMessage', phone: 'by phone', task_activity: 'from a task' };

function Message({ m, assistant, me }: { m: ChatMessage; assistant: string; me: string }) {
  const outside = m.role === 'contact';
  const mine = m.role === 'user';
  const who = mine ? 'You' : m.role === 'assistant' ? assistant : m.role === 'system' ? 'Steward' : (m.from ?? 'Someone outside');
  const via = PLATFORM[m.platform] ?? `on ${m.platform}`;
  return (
    <li className={cn('flex max-w-[46rem] gap-2.5', mine ? 'flex-row-reverse self-end' : 'self-start', m.role === 'system' && 'self-center')} data-role={m.role}>
      <Avatar name={mine ? me : who} size="md" className="mt-0.5" />
      <div className={cn('min-w-0', mine && 'text-right')}>
        <p className="text-sm text-muted">
          <strong className="font-semibold text-fg">{who}</strong>
          {via ? ` · ${via}` : ''} · <Time value={m.timestamp} />
          {outside && <span className="font-semibold text-untrusted"> · written outside your account</span>}
        </p>
        <div data-testid="message-content" className={cn('mt-0.5 inline-block rounded-xl px-3.5 py-2 text-left whitespace-pre-wrap [overflow-wrap:anywhere]', mine ? 'bg-accent text-accent-fg' : outside ? 'border-l-4 border-untrusted bg-untrusted-soft' : 'bg-surface')}>{m.content}</div>
        {m.files.length > 0 && (
          <p className="mt-1 flex flex-wrap gap-1 text-sm text-muted">
            <Paperclip aria-hidden="true" className="size-4" />
            {m.files.map((f) => f.filename ?? f.fileId).join(', ')}
          </p>
        )}
      </div>
    </li>
  );
}

/**
 * The conversation and its composer. A turn streams from /chats/{chatId}/process token by token;
 * a dropped connection or a reload resumes with Last-Event-ID from what was kept (turn-state.ts),
 * so text is neither lost nor repeated.
 */
export function ChatView({
  chat,
  initialMessages,
  openTurn,
  voice = false,
  live = false,
  me = 'You',
}: {
  chat: Chat;
  /** The signed-in person's name (their avatar). */
  me?: string;
  initialMessages: ChatMessage[];
  openTurn: { executionId: string; status: string } | null;
  /** Live voice is set up on this deployment (transcription and speech): the hold-to-talk button is shown. */
  voice?: boolean;
  /** The deployment has a realtime speech model: "Talk" opens a live conversation (hold to talk stays beside it). */
  live?: boolean;
}) {
  const [messages, setMessages] = useState(initialMessages);
  const [turn, setTurnState] = useState<Turn | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');
  const [text, setText] = useState('');
  const uploads = useUploads();
  const { files, setFiles } = uploads;
  const notify = useNotify();
  const [making, setMaking] = useState(false);
  const assistantName = chat.assistantInfo.name ?? 'Your assistant';
  const [opened, setOpened] = useState<string[]>([]);
  const current = useRef<Turn | null>(null);
  const stop = useRef(new AbortController());
  const end = useRef<HTMLLIElement>(null);
  const [voiceState, setVoiceState] = useState<VoiceState>('idle');
  /** The turn in progress was spoken: its reply is spoken back. */
  const spokenTurn = useRef(false);
  const player = useRef<HTMLAudioElement>(null);
  const [playedReply, setPlayedReply] = useState<string | null>(null);
  const [talking, setTalking] = useState(false);

  /** After a live conversation: its words are the chat's newest messages. */
  const reloadMessages = async () => {
    try {
      const { chat: fresh } = await trpc.chats.get.query({ chatId: chat.id });
      const perPage = 100;
      const page = Math.max(1, Math.ceil(fresh.messageCount / perPage));
      setMessages((await trpc.chats.messages.query({ chatId: chat.id, page, perPage })).messages);
    } catch (e) {
      setProblem(`The conversation could not be reloaded: ${describeError(e).message}`);
    }
  };

  /** The reply read aloud by the deployment's speech API in the assistant's voice. */
  const speakReply = async (messageId: string) => {
    setVoiceState('speaking');
    try {
      const said = await trpc.voice.speak.mutate({ chatId: chat.id, messageId });
      const bytes = Uint8Array.from(atob(said.audio), (c) => c.charCodeAt(0));
      const audio = player.current!;
      audio.src = URL.createObjectURL(new Blob([bytes], { type: said.contentType }));
      await new Promise<void>((resolve, reject) => {
        audio.onended = () => resolve();
        audio.onerror = () => reject(new Error('the reply’s audio could not be played'));
        audio.play().catch(reject);
      });
      setPlayedReply(messageId);
      setAnnounce('The reply was spoken.');
    } catch (e) {
      setProblem(`The reply could not be spoken: ${describeError(e).message}`);
    } finally {
      setVoiceState('idle');
    }
  };

  const setTurn = (t: Turn | null) => {
    current.current = t;
    setTurnState(t);
    saveTurn(chat.id, t);
  };
  const addMessage = (m: ChatMessage) => setMessages((all) => (all.some((x) => x.id === m.id) ? all : [...all, m]));

  const onEvent = (e: StreamEvent) => {
    const data = (e.data ?? {}) as Record<string, unknown>;
    if (e.event === 'status_update' && data.state === 'queued' && !current.current) {
      setTurn({ executionId: String(data.executionId), lastEventId: e.id ?? 1, deltas: [], status: 'queued' });
      return;
    }
    const t = current.current;
    if (!t) return;
    if (e.event === 'message') {
      addMessage(data.message as ChatMessage);
      setOpened((data.taskIds as string[] | undefined) ?? []);
      setTurn(null);
      setAnnounce('The assistant replied.');
      if (spokenTurn.current) {
        spokenTurn.current = false;
        void speakReply((data.message as ChatMessage).id);
      }
      return;
    }
    if (e.event === 'error') {
      setProblem(String(data.message ?? 'The turn failed.'));
      setTurn(null);
      if (spokenTurn.current) {
        spokenTurn.current = false;
        setVoiceState('idle');
      }
      return;
    }
    setTurn(applyEvent(t, e));
  };

  /** Reads the turn's stream to its final event, reconnecting with Last-Event-ID when it breaks. */
  const follow = async (first: Response | null) => {
    let res = first;
    let failures = 0;
    let emptyEnds = 0;
    // The first answer is read even before its first event named the turn.
    while (!stop.current.signal.aborted && (res || current.current)) {
      const before = current.current?.lastEventId ?? 0;
      try {
        if (!res) {
          const t = current.current!;
          res = await fetch(`/chats/${encodeURIComponent(chat.id)}/runs/${encodeURIComponent(t.executionId)}/events`, { headers: { 'Last-Event-ID': String(t.lastEventId) }, signal: stop.current.signal });
          if (res.status === 404) return setTurn(null);
          if (!res.ok) throw new Error(`stream answered ${res.status}`);
        }
        await readEvents(res, onEvent, stop.current.signal);
        failures = 0;
        // An ended turn whose events were swept closes with nothing new: its reply is in the messages.
        if (current.current && current.current.lastEventId === before && ++emptyEnds >= 2) return setTurn(null);
      } catch {
        if (stop.current.signal.aborted) return;
        await sleep(Math.min(250 * 2 ** failures++, 4_000));
      }
      res = null;
    }
  };

  useEffect(() => {
    const controller = new AbortController();
    stop.current = controller;
    const kept = loadTurn(chat.id);
    const resume = kept ?? (openTurn ? { executionId: openTurn.executionId, lastEventId: 0, deltas: [], status: openTurn.status } : null);
    if (resume) {
      setTurn(resume);
      void follow(null);
    }
    return () => controller.abort();
    // Resuming happens once, when the page opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Braces: scrollIntoView returns a promise in current browsers, and an effect must return nothing or its cleanup.
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'nearest' });
  }, [messages.length, turn?.deltas.length]);

  /** Sends one message and follows its turn; `spoken`: it came from the voice button (platform voice), and its reply is spoken. */
  const sendMessage = async (content: string, attached: Attached[], spoken = false): Promise<boolean> => {
    setProblem(null);
    setOpened([]);
    const platform = spoken ? 'voice' : 'chat';
    const res = await fetch(`/chats/${encodeURIComponent(chat.id)}/process`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: { content, ...(spoken ? { platform } : {}), files: attached.map((f) => ({ fileId: f.fileId, filename: f.filename, mimeType: f.mimeType })) } }),
      signal: stop.current.signal,
    }).catch(() => null);
    if (!res || !res.ok) {
      const body = res ? ((await res.json().catch(() => null)) as { error?: string } | null) : null;
      setProblem(body?.error ?? 'The message could not be sent. Try again.');
      return false;
    }
    spokenTurn.current = spoken;
    addMessage({ id: `local-${Date.now()}`, referenceId: null, role: 'user', from: null, to: [], cc: [], subject: null, platform, content, files: attached, timestamp: new Date().toISOString(), metadata: {}, delivery: { state: 'internal', taskId: null, cartId: null } });
    await follow(res);
    return true;
  };

  const send = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!text.trim() || current.current) return;
    const content = text;
    const attached = files;
    setText('');
    setFiles([]);
    if (!(await sendMessage(content, attached))) {
      setText(content);
      setFiles(attached);
    }
  };

  /** Start a task from what is in the composer: the first line its title, all of it the first message. */
  const makeTask = async () => {
    const content = text.trim();
    if (!content) return;
    setMaking(true);
    try {
      const title = content.split('\n')[0]!.slice(0, 200);
      const { task } = await trpc.tasks.create.mutate({ title, assistant: chat.assistantInfo.id });
      await trpc.tasks.process.mutate({ taskId: task.id, message: content, ...(files.length ? { files: files.map((f) => ({ fileId: f.fileId })) } : {}) });
      setText('');
      setFiles([]);
      setOpened([task.id]);
      notify('ok', `Started the task “${title}”.`);
    } catch (e) {
      notify('error', describeError(e).message);
    } finally {
      setMaking(false);
    }
  };

  const preview = previewOf(turn);
  return (
    <div className="flex min-h-[calc(100dvh-16rem)] flex-col">
      <ol className="flex flex-1 flex-col gap-4 pb-4" aria-label="Conversation">
        {messages.length === 0 && !turn && <li className="self-center py-8 text-center text-muted">Say hello: {assistantName} answers here, and can start tasks for you.</li>}
        {messages.map((m) => (
          <Message key={m.id} m={m} assistant={assistantName} me={me} />
        ))}
        {turn && (
          <li className="flex max-w-[46rem] gap-2.5 self-start" aria-busy="true" data-testid="streaming-reply" data-role="assistant-streaming">
            <Avatar name={assistantName} size="md" className="mt-0.5" />
            <div className="min-w-0">
              <p className="text-sm text-muted">
                <strong className="font-semibold text-fg">{assistantName}</strong> · {turn.status === 'queued' ? 'starting…' : 'writing…'}
              </p>
              <div className="mt-0.5 inline-block min-h-9 min-w-12 rounded-xl bg-surface px-3.5 py-2 whitespace-pre-wrap [overflow-wrap:anywhere]" aria-live="off" data-testid="streaming-text">
                {preview || <span className="animate-pulse text-muted">…</span>}
              </div>
            </div>
          </li>
        )}
        <li ref={end} aria-hidden="true" className="h-px" />
      </ol>
      <p role="status" aria-live="polite" className="sr-only">
        {announce}
      </p>
      {problem && (
        <p role="alert" className="mb-2 text-danger">
          {problem}
        </p>
      )}
      {opened.length > 0 && (
        <p className="mb-2 text-sm">
          {opened.length === 1 ? 'A task was started: ' : `${opened.length} tasks were started: `}
          {opened.map((id, i) => (
            <Link key={id} href={`/tasks/${id}`} className="mr-2">
              {opened.length === 1 ? 'open it' : `task ${i + 1}`}
            </Link>
          ))}
        </p>
      )}
      <div className="sticky bottom-16 z-20 -mx-4 border-t border-border bg-bg/95 px-4 pt-3 pb-3 backdrop-blur sm:-mx-6 sm:px-6 lg:bottom-0">
        <DropZone uploads={uploads} disabled={Boolean(turn)}>
          <form onSubmit={send} aria-label="Message your assistant" className="flex flex-col gap-2">
            <label htmlFor="chat-message" className="sr-only">
              Message {chat.assistantInfo.name ?? 'your assistant'}
            </label>
            <AttachedList uploads={uploads} />
            <div className="flex items-end gap-2 rounded-xl border border-strong/50 bg-raised p-1.5 focus-within:border-accent">
              <FilePicker uploads={uploads} disabled={Boolean(turn)} />
              <textarea
                id="chat-message"
                value={text}
                rows={1}
                maxLength={100_000}
                placeholder={`Message ${assistantName}`}
                aria-describedby="chat-message-hint"
                className="max-h-48 min-h-11 flex-1 resize-none bg-transparent px-2 py-2.5 leading-6 outline-none [field-sizing:content] placeholder:text-muted"
                onChange={(e) => setText(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                    e.preventDefault();
                    (e.currentTarget.form as HTMLFormElement).requestSubmit();
                  }
                }}
              />
              <Button type="submit" size="icon" aria-label="Send" disabled={!text.trim() || Boolean(turn)}>
                <SendHorizontal aria-hidden="true" />
              </Button>
            </div>
            <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-muted">
              <span id="chat-message-hint">Enter sends · Shift+Enter for a new line · drop files to attach</span>
              <Button variant="ghost" size="sm" disabled={!text.trim() || making || Boolean(turn)} onClick={() => void makeTask()}>
                <ListPlus aria-hidden="true" />
                Make it a task
              </Button>
            </div>
          </form>
        </DropZone>
        {(voice || live) && (
          <section aria-label="Talk to your assistant" className="mt-2 flex flex-wrap items-center gap-2">
            {live && (
              <LiveTalk
                chatId={chat.id}
                assistantName={assistantName}
                disabled={Boolean(turn) || voiceState !== 'idle'}
                onActive={setTalking}
                onEnded={() => void reloadMessages()}
                onProblem={setProblem}
              />
            )}
            {voice && !talking && (
              <VoiceButton
                chatId={chat.id}
                disabled={Boolean(turn)}
                state={voiceState}
                setState={setVoiceState}
                onProblem={setProblem}
                onText={async (content) => {
                  if (current.current || !(await sendMessage(content, [], true))) setVoiceState('idle');
                }}
              />
            )}
            <audio ref={player} data-testid="voice-reply" data-played={playedReply ?? ''} hidden />
          </section>
        )}
      </div>
    </div>
  );
}
