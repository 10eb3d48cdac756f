import { ListTodo, Search } from 'lucide-react';
import Link from 'next/link';
import { TASK_STATUS } from '@/app/_lib/labels';
import { LiveRefresh } from '@/app/_lib/live';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Field } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { RowList } from '@/app/_ui/list';
import { Empty } from '@/app/_ui/states';
import { taskStatuses } from '@/db/schema';
import { TaskListInput } from '@/server/trpc/routers/tasks';
import { TaskRow } from './task-row';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Tasks · Steward' };

const PER_PAGE = 30;
type Search = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

/** The URL's filters, checked with the router's own input schema (a bad value is dropped, not an error page). */
function filtersFrom(q: Search) {
  const raw = { search: one(q.search), status: one(q.status), assistant: one(q.assistant), page: one(q.page) ?? '1', perPage: String(PER_PAGE) };
  const parsed = TaskListInput.safeParse(raw);
  return parsed.success ? parsed.data : TaskListInput.parse({ perPage: String(PER_PAGE) });
}

function pageHref(q: ReturnType<typeof filtersFrom>, page: number) {
  const p = new URLSearchParams();
  if (q.search) p.set('search', q.search);
  if (q.status) p.set('status', q.status);
  if (q.assistant) p.set('assistant', q.assistant);
  p.set('page', String(page));
  return `/tasks?${p}`;
}

/** Every task of the person, newest first: search, filter by status and assistant, page through; live. */
export default async function Tasks({ searchParams }: { searchParams: Promise<Search> }) {
  const { api, me } = await requireSignedIn('/tasks');
  const q = filtersFrom(await searchParams);
  const [{ tasks }, { assistants }] = await Promise.all([api.tasks.list(q), api.channels.roster()]);
  const names = new Map(assistants.map((a) => [a.id, a.name]));
  const filtered = Boolean(q.search || q.status || q.assistant);
  return (
    <HostedFrame me={me} title="Tasks" width="wide">
      <LiveRefresh topics={['tasks']} />
      <form method="get" action="/tasks" role="search" aria-label="Tasks" className="mb-4 grid grid-cols-1 items-end gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)_auto]">
        <Field id="task-search" label="Search titles and descriptions">
          <Input id="task-search" name="search" type="search" defaultValue={q.search ?? ''} maxLength={200} />
        </Field>
        <Field id="task-status" label="Status">
          <Select id="task-status" name="status" defaultValue={q.status ?? ''}>
            <option value="">Any status</option>
            {taskStatuses.map((st) => (
              <option key={st} value={st}>
                {TASK_STATUS[st]}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="task-assistant" label="Assistant">
          <Select id="task-assistant" name="assistant" defaultValue={q.assistant ?? ''}>
            <option value="">Any assistant</option>
            {assistants.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </Select>
        </Field>
        <div className="flex items-center gap-3">
          <Button type="submit" variant="secondary">
            <Search aria-hidden="true" />
            Show tasks
          </Button>
          {filtered && (
            <Link href="/tasks" className="text-sm whitespace-nowrap">
              Clear the filters
            </Link>
          )}
        </div>
      </form>
      {tasks.length === 0 ? (
        <Empty title={filtered ? 'No task matches these filters.' : 'No tasks yet.'} icon={ListTodo}>
          <p>{filtered ? 'Try another word or status.' : 'Tasks appear here when you or your assistant start one, for example from a chat.'}</p>
        </Empty>
      ) : (
        <RowList label="Tasks">
          {tasks.map((t) => (
            <TaskRow key={t.id} task={t} assistant={names.get(t.assistant) ?? 'Assistant'} />
          ))}
        </RowList>
      )}
      <nav aria-label="Task pages" className="mt-4 flex items-center gap-4 text-sm">
        {q.page > 1 && <Link href={pageHref(q, q.page - 1)} className="inline-flex min-h-11 items-center">Previous page</Link>}
        <span className="text-muted">Page {q.page}</span>
        {tasks.length === PER_PAGE && <Link href={pageHref(q, q.page + 1)} className="inline-flex min-h-11 items-center">Next page</Link>}
      </nav>
    </HostedFrame>
  );
}
