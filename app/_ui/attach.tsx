'use client';
import { useId, useRef, useState } from 'react';
import { uploadFile, type Attached } from '@/app/_lib/upload';
import { describeError } from '@/app/_lib/trpc-client';
import s from './hosted.module.css';
import ui from './ui.module.css';

/** Files to send with a message: each uploaded when chosen, listed with a Remove button. */
export function Attachments({ files, onChange, disabled }: { files: Attached[]; onChange: (files: Attached[]) => void; disabled?: boolean }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const pick = async (list: FileList | null) => {
    if (!list?.length) return;
    setBusy(true);
    setProblem(null);
    try {
      const added: Attached[] = [];
      for (const f of Array.from(list)) added.push(await uploadFile(f));
      onChange([...files, ...added]);
    } catch (e) {
      setProblem(describeError(e).message);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };
  return (
    <div>
      <label htmlFor={id} className={ui.muted}>
        Attach files
      </label>{' '}
      <input id={id} ref={input} type="file" multiple disabled={disabled || busy} onChange={(e) => void pick(e.target.files)} />
      {busy && <span role="status"> Uploading…</span>}
      {problem && <p role="alert" className={s.error}>{problem}</p>}
      {files.length > 0 && (
        <ul aria-label="Attached files">
          {files.map((f) => (
            <li key={f.fileId}>
              {f.filename} ({Math.max(1, Math.round(f.size / 1024))} KB){' '}
              <button type="button" className={s.secondary} onClick={() => onChange(files.filter((x) => x.fileId !== f.fileId))}>
                Remove<span className="sr-only"> {f.filename}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
