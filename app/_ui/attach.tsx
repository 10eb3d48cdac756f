'use client';
import { Paperclip, X } from 'lucide-react';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { uploadFile, type Attached } from '@/app/_lib/upload';
import { describeError } from '@/app/_lib/trpc-client';
import { Button } from './button';
import { cn } from './cn';

/*
 * Attaching files to a message: useUploads() holds the files (each uploaded as soon as it is
 * chosen or dropped); <DropZone> takes files dropped anywhere on its area; the
 * paperclip button <FilePicker> (a real file input, reachable by keyboard); <AttachedList> lists them with Remove.
 */
export function useUploads() {
  const [files, setFiles] = useState<Attached[]>([]);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const add = async (list: FileList | File[] | null) => {
    const chosen = list ? Array.from(list) : [];
    if (!chosen.length) return;
    setBusy(true);
    setProblem(null);
    try {
      const added: Attached[] = [];
      for (const f of chosen) added.push(await uploadFile(f));
      setFiles((now) => [...now, ...added]);
    } catch (e) {
      setProblem(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };
  return { files, setFiles, busy, problem, add };
}

export type Uploads = ReturnType<typeof useUploads>;

/** The paperclip button: a real file input (keyboard, screen readers), visually a 44 px icon button. */
export function FilePicker({ uploads, disabled, label = 'Attach files' }: { uploads: Uploads; disabled?: boolean; label?: string }) {
  const id = useId();
  return (
    <span className="relative inline-flex">
      <input
        id={id}
        type="file"
        multiple
        disabled={disabled || uploads.busy}
        className="peer sr-only"
        onChange={(e) => {
          void uploads.add(e.target.files);
          e.target.value = '';
        }}
      />
      <label htmlFor={id} className="inline-flex size-11 cursor-pointer items-center justify-center rounded-md text-muted peer-focus-visible:outline-3 peer-focus-visible:outline-focus hover:bg-surface hover:text-fg sm:size-9">
        <Paperclip aria-hidden="true" className="size-5" />
        <span className="sr-only">{label}</span>
      </label>
    </span>
  );
}

/** An area that takes dropped files (highlighted while files are dragged over it). */
export function DropZone({ uploads, disabled, children, className }: { uploads: Uploads; disabled?: boolean; children: ReactNode; className?: string }) {
  const [over, setOver] = useState(false);
  return (
    <div
      className={cn('relative rounded-xl', over && 'outline-2 outline-offset-4 outline-accent outline-dashed', className)}
      onDragOver={(e) => {
        if (disabled || !e.dataTransfer.types.includes('Files')) return;
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        if (disabled) return;
        e.preventDefault();
        setOver(false);
        void uploads.add(e.dataTransfer.files);
      }}
      data-testid="drop-zone"
    >
      {children}
      {over && <div className="pointer-events-none absolute inset-0 flex items-center justify-center rounded-xl bg-accent-soft/80 font-medium text-accent">Drop to attach</div>}
    </div>
  );
}

/** The files attached so far, each with Remove; the upload in progress and a failure. */
export function AttachedList({ uploads }: { uploads: Uploads }) {
  const { files, setFiles, busy, problem } = uploads;
  if (!files.length && !busy && !problem) return null;
  return (
    <div className="flex flex-col gap-1">
      {files.length > 0 && (
        <ul aria-label="Attached files" className="flex flex-wrap gap-1.5">
          {files.map((f) => (
            <li key={f.fileId} className="inline-flex items-center gap-1 rounded-full border border-border bg-surface py-0.5 pr-0.5 pl-3 text-sm">
              <Paperclip aria-hidden="true" className="size-3.5 text-muted" />
              {f.filename} <span className="text-muted">({Math.max(1, Math.round(f.size / 1024))} KB)</span>
              <Button variant="ghost" size="icon" className="size-8 min-h-8 min-w-8" onClick={() => setFiles(files.filter((x) => x.fileId !== f.fileId))}>
                <X aria-hidden="true" />
                <span className="sr-only">Remove {f.filename}</span>
              </Button>
            </li>
          ))}
        </ul>
      )}
      {busy && (
        <p role="status" className="text-sm text-muted">
          Uploading…
        </p>
      )}
      {problem && (
        <p role="alert" className="text-sm text-danger">
          {problem}
        </p>
      )}
    </div>
  );
}

/** The earlier API (task composer): a picker and the list in one, with the files held by the caller. */
export function Attachments({ files, onChange, disabled }: { files: Attached[]; onChange: (files: Attached[]) => void; disabled?: boolean }) {
  const uploads = useUploads();
  // Files uploaded here are handed to the caller, which holds the list.
  useEffect(() => {
    if (!uploads.files.length) return;
    onChange([...files, ...uploads.files]);
    uploads.setFiles([]);
  }, [uploads.files, files, onChange, uploads]);
  const shown = { ...uploads, files, setFiles: (f: Attached[] | ((x: Attached[]) => Attached[])) => onChange(typeof f === 'function' ? f(files) : f) } as Uploads;
  return (
    <DropZone uploads={uploads} disabled={disabled}>
      <div className="flex items-center gap-2">
        <FilePicker uploads={uploads} disabled={disabled} />
        <span className="text-sm text-muted">Attach files (or drop them here)</span>
      </div>
      <AttachedList uploads={shown} />
    </DropZone>
  );
}
