import { Download, FileText, Search } from 'lucide-react';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { Button } from '@/app/_ui/button';
import { Input } from '@/app/_ui/controls';
import { HostedFrame } from '@/app/_ui/layout';
import { Row, RowList } from '@/app/_ui/list';
import { Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { UploadFiles } from './upload-files';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Files · Steward' };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.slice(0, 200) || undefined;

function size(bytes: number) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The person's files: what they attached to chats and tasks or uploaded here; drop to upload, download. */
export default async function Files({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = one((await searchParams).search);
  const { api, me } = await requireSignedIn('/files');
  const { files } = await api.files.list({ search, perPage: 100 });
  return (
    <HostedFrame me={me} title="Files" width="wide" description="Files you gave your assistant. It reads them when a task or chat needs them.">
      <UploadFiles />
      <form method="get" action="/files" role="search" aria-label="Files" className="my-4 flex items-end gap-2">
        <div className="flex-1">
          <label htmlFor="file-search" className="mb-1.5 block text-sm font-medium">
            Search file names
          </label>
          <Input id="file-search" name="search" type="search" defaultValue={search ?? ''} maxLength={200} />
        </div>
        <Button type="submit" variant="secondary">
          <Search aria-hidden="true" />
          Search
        </Button>
      </form>
      {files.length === 0 ? (
        <Empty title={search ? 'No file matches.' : 'No files yet.'} icon={FileText}>
          <p>Drop files above, or attach them in a chat.</p>
        </Empty>
      ) : (
        <RowList label="Files">
          {files.map((f) => (
            <Row
              key={f.id}
              titleAs="h2"
              lead={<FileText aria-hidden="true" />}
              title={f.name}
              meta={
                <>
                  <span>{size(f.size)}</span>
                  <span aria-hidden="true">·</span>
                  <Time value={f.createdAt} />
                </>
              }
              trail={
                <Button asChild variant="ghost" size="icon">
                  <a href={`/files/${f.id}/download`} aria-label={`Download ${f.name}`} download>
                    <Download aria-hidden="true" />
                  </a>
                </Button>
              }
            />
          ))}
        </RowList>
      )}
    </HostedFrame>
  );
}
