'use client';
import { Upload } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { DropZone, FilePicker, useUploads } from '@/app/_ui/attach';

/** Upload by dropping files on the area or choosing them; the list reads again once they are stored. */
export function UploadFiles() {
  const router = useRouter();
  const uploads = useUploads();
  const count = uploads.files.length;
  useEffect(() => {
    if (count) router.refresh();
  }, [count, router]);
  return (
    <DropZone uploads={uploads}>
      <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed border-strong/50 px-4 py-6 text-center">
        <Upload aria-hidden="true" className="size-6 text-muted" />
        <p className="text-sm text-muted">Drop files here, or</p>
        <span className="inline-flex items-center gap-1 rounded-md border border-border bg-raised pr-3 text-sm">
          <FilePicker uploads={uploads} label="Choose files to upload" />
          Choose files
        </span>
        <p role="status" className="min-h-5 text-sm text-muted">
          {uploads.busy ? 'Uploading…' : count ? `${count === 1 ? 'One file' : `${count} files`} uploaded.` : ''}
        </p>
        {uploads.problem && (
          <p role="alert" className="text-sm text-danger">
            {uploads.problem}
          </p>
        )}
      </div>
    </DropZone>
  );
}
