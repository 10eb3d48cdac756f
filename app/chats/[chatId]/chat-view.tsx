'use client';
import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import { when } from '@/app/_lib/labels';
import { readEvents, type StreamEvent } from '@/app/_lib/sse';
import type { Chat, ChatMessage } from '@/app/_lib/types';
import type { Attached } from '@/app/_lib/upload';
import { Attachments } from '@/app/_ui/attach';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';
import css from './chat.module.css';
import { applyEvent, loadTurn, previewOf, saveTurn, type Turn } from './turn-state';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { VoiceButton, type VoiceState } from './voice-button';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WHO: Record<ChatMessage['role'], string> = { user: 'You', assistant: 'Assistant', contact: 'From outside', system: 'Steward' };

function Message({ m }: { m: ChatMessage }) {
  const outside = m.role === 'contact';
  return (
    <li className={`${css.message} ${css[m.role] ?? ''}`} data-role={m.role}>
      <p className={ui.meta}>
        <strong>{WHO[m.role]}</strong>
        {m.from && m.role !== 'user' && m.role !== 'assistant' ? ` (${m.from})` : ''} · {m.platform} · {when(m.timestamp)}
        {outside && <span className={css.outside}> · untrusted content: written outside your account</span>}
      </p>
      <div className={`${ui.pre} ${outside ? ui.untrusted : ''}`}>{m.content}</div>
      {m.files.length > 0 && <p className={ui.meta}>Files: {m.files.map((f) => f.filename ?? f.fileId).join(', ')}</p>}
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
}: {
  chat: Chat;
  initialMessages: ChatMessage[];
  openTurn: { executionId: string; status: string } | null;
  /** Live voice is set up on this deployment (transcription and speech): the hold-to-talk button is shown. */
  voice?: boolean;
}) {
  const [messages, setMessages] = useState(initialMessages);
  const [turn, setTurnState] = useState<Turn | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');
  const [text, setText] = useState('');
  const [files, setFiles] = useState<Attached[]>([]);
  const [opened, setOpened] = useState<string[]>([]);
  const current = useRef<Turn | null>(null);
  const stop = useRef(new AbortController());
  const end = useRef<HTMLLIElement>(null);
  const [voiceState, setVoiceState] = useState<VoiceState>('idle');
  /** The turn in progress was spoken: its reply is spoken back. */
  const spokenTurn = useRef(false);
  const player = useRef<HTMLAudioElement>(null);
  const [playedReply, setPlayedReply] = useState<string | null>(null);

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

  const preview = previewOf(turn);
  return (
    <div className={css.chat}>
      <ol className={css.messages} aria-label="Conversation">
        {messages.map((m) => (
          <Message key={m.id} m={m} />
        ))}
        {turn && (
          <li className={`${css.message} ${css.assistant}`} aria-busy="true" data-testid="streaming-reply">
            <p className={ui.meta}>
              <strong>Assistant</strong> · {turn.status === 'queued' ? 'starting…' : 'writing…'}
            </p>
            <div className={ui.pre} aria-live="off" data-testid="streaming-text">
              {preview}
            </div>
          </li>
        )}
        <li ref={end} aria-hidden="true" className={css.end} />
      </ol>
      <p role="status" aria-live="polite" className="sr-only">
        {announce}
      </p>
      {problem && (
        <p role="alert" className={s.error}>
          {problem}
        </p>
      )}
      {opened.length > 0 && (
        <p>
          The assistant opened {opened.length === 1 ? 'a task' : `${opened.length} tasks`}:{' '}
          {opened.map((id, i) => (
            <Link key={id} href={`/tasks/${id}`}>
              {`task ${i + 1}`}
            </Link>
          ))}
        </p>
      )}
      <form onSubmit={send} aria-label="Message your assistant" className={css.composer}>
        <div className={s.field}>
          <label htmlFor="chat-message">Message {chat.assistantInfo.name ?? 'your assistant'}</label>
          <textarea
            id="chat-message"
            value={text}
            rows={3}
            maxLength={100_000}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) (e.currentTarget.form as HTMLFormElement).requestSubmit();
            }}
          />
        </div>
        <Attachments files={files} onChange={setFiles} disabled={Boolean(turn)} />
        <button className={s.button} type="submit" disabled={!text.trim() || Boolean(turn)}>
          Send
        </button>
      </form>
      {voice && (
        <section aria-label="Talk to your assistant" className={css.composer}>
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
          <audio ref={player} data-testid="voice-reply" data-played={playedReply ?? ''} hidden />
        </section>
      )}
    </div>
  );
}
