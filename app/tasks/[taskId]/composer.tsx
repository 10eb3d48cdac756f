'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { Attached } from '@/app/_lib/upload';
import { Attachments } from '@/app/_ui/attach';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';

/**
 * A message to the task's assistant (the process call): an answer to its question or new
 * instructions, with files uploaded through the files service. The task runs again.
 */
export function Composer({ taskId, asking }: { taskId: string; asking: boolean }) {
  const router = useRouter();
  const notify = useNotify();
  const [text, setText] = useState('');
  const [files, setFiles] = useState<Attached[]>([]);
  const [pending, setPending] = useState(false);
  const send = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!text.trim() && !files.length) return;
    setPending(true);
    try {
      const { process } = await trpc.tasks.process.mutate({ taskId, message: text, files: files.map((f) => ({ fileId: f.fileId })) });
      setText('');
      setFiles([]);
      notify('ok', asking ? 'Answer sent: the task goes on.' : `Message sent. ${process.message ?? ''}`.trim());
      router.refresh();
    } catch (err) {
      notify('error', describeError(err).message);
    } finally {
      setPending(false);
    }
  };
  return (
    <form onSubmit={send} aria-label={asking ? 'Answer the assistant' : 'Message the assistant'}>
      <div className={s.field}>
        <label htmlFor="task-message">{asking ? 'Your answer' : 'Message to the assistant'}</label>
        <textarea id="task-message" value={text} rows={3} maxLength={100_000} onChange={(e) => setText(e.target.value)} />
      </div>
      <Attachments files={files} onChange={setFiles} disabled={pending} />
      <p>
        <button className={s.button} type="submit" disabled={pending || (!text.trim() && !files.length)}>
          {asking ? 'Send answer' : 'Send'}
        </button>
      </p>
    </form>
  );
}
