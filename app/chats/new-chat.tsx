'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Field } from '@/app/_ui/field';
import { useNotify } from '@/app/_ui/toast';
import { Plus } from 'lucide-react';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';

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
      className="mb-4 grid grid-cols-1 items-end gap-3 rounded-lg border border-border bg-raised p-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,2fr)_auto]"
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
        <Select id="new-chat-assistant" value={assistantId} onChange={(e) => setAssistantId(e.target.value)}>
          {assistants.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </Select>
      </Field>
      <Field id="new-chat-title" label="Title (optional)">
        <Input id="new-chat-title" value={title} maxLength={500} onChange={(e) => setTitle(e.target.value)} />
      </Field>
      <Button type="submit" disabled={pending || !assistantId}>
        <Plus aria-hidden="true" />
        Start a chat
      </Button>
    </form>
  );
}
