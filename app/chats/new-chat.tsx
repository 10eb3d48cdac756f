'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Field } from '@/app/_ui/field';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';

/** Starts a chat with one of the person's assistants and opens it. */
export function NewChat({ assistants }: { assistants: Array<{ id: string; name: string }> }) {
  const router = useRouter();
  const notify = useNotify();
  const [assistantId, setAssistantId] = useState(assistants[0]?.id ?? '');
  const [title, setTitle] = useState('');
  const [pending, setPending] = useState(false);
  if (!assistants.length) return <p>You have no assistant yet: ask your administrator to give you one.</p>;
  return (
    <form
      className={s.row}
      aria-label="Start a chat"
      onSubmit={async (e) => {
        e.preventDefault();
        setPending(true);
        try {
          const { chat } = await trpc.chats.create.mutate({ assistantId, ...(title.trim() ? { title: title.trim() } : {}) });
          router.push(`/chats/${chat.id}`);
        } catch (err) {
          notify('error', describeError(err).message);
          setPending(false);
        }
      }}
    >
      <Field id="new-chat-assistant" label="Assistant">
        <select id="new-chat-assistant" value={assistantId} onChange={(e) => setAssistantId(e.target.value)}>
          {assistants.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id="new-chat-title" label="Title (optional)">
        <input id="new-chat-title" value={title} maxLength={500} onChange={(e) => setTitle(e.target.value)} />
      </Field>
      <button className={s.button} type="submit" disabled={pending || !assistantId}>
        Start a chat
      </button>
    </form>
  );
}
