import Link from 'next/link';
import { TASK_STATUS, statusTone, when } from '@/app/_lib/labels';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { Field } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Badge, Empty } from '@/app/_ui/states';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';
import { taskStatuses } from '@/db/schema';
import { TaskListInput } from '@/server/trpc/routers/tasks';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Tasks · Steward' };

const PER_PAGE = 20;
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

/** Every task of the person, newest first: search, filter by status and assistant, page through. */
export default async function Tasks({ searchParams }: { searchParams: Promise<Search> }) {
  const { api, me } = await requireSignedIn('/tasks');
  const q = filtersFrom(await searchParams);
  const [{ tasks }, { assistants }] = await Promise.all([api.tasks.list(q), api.channels.roster()]);
  const names = new Map(assistants.map((a) => [a.id, a.name]));
  const filtered = Boolean(q.search || q.status || q.assistant);
  return (
    <HostedFrame me={me} title="Tasks">
      <form method="get" action="/tasks" role="search" aria-label="Tasks" className={s.row}>
        <Field id="task-search" label="Search titles and descriptions">
          <input id="task-search" name="search" type="search" defaultValue={q.search ?? ''} maxLength={200} />
        </Field>
        <Field id="task-status" label="Status">
          <select id="task-status" name="status" defaultValue={q.status ?? ''}>
            <option value="">Any status</option>
            {taskStatuses.map((st) => (
              <option key={st} value={st}>
                {TASK_STATUS[st]}
              </option>
            ))}
          </select>
        </Field>
        <Field id="task-assistant" label="Assistant">
          <select id="task-assistant" name="assistant" defaultValue={q.assistant ?? ''}>
            <option value="">Any assistant</option>
            {assistants.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </Field>
        <button className={s.button} type="submit">
          Show tasks
        </button>
        {filtered && <Link href="/tasks">Clear the filters</Link>}
      </form>
      {tasks.length === 0 ? (
        <Empty title={filtered ? 'No task matches these filters.' : 'No tasks yet.'}>
          <p>{filtered ? 'Try another word or status.' : 'Tasks appear here when you or your assistant start one, for example from a chat.'}</p>
        </Empty>
      ) : (
        <ul className={ui.list} aria-label="Tasks">
          {tasks.map((t) => (
            <li key={t.id} className={ui.item}>
              <div className={ui.itemHead}>
                <h2 className={ui.itemTitle}>
                  <Link href={`/tasks/${t.id}`}>{t.title}</Link>
                </h2>
                <span className={s.inline}>
                  {t.proposalStatus === 'pending_user_approval' && <Badge tone="accent">Proposed</Badge>}
                  {t.pendingCart && <Badge tone="warn">To approve</Badge>}
                  {t.tainted && <Badge tone="warn">Read outside content</Badge>}
                  <Badge tone={statusTone(t.status)}>{TASK_STATUS[t.status]}</Badge>
                </span>
              </div>
              <p className={ui.meta}>
                {names.get(t.assistant) ?? 'Assistant'} · created {when(t.createdAt)} · updated {when(t.updatedAt)}
                {t.alarm?.status === 'set' ? ` · wakes ${when(t.alarm.wakeAt)}` : ''}
              </p>
            </li>
          ))}
        </ul>
      )}
      <nav aria-label="Task pages" className={s.row}>
        {q.page > 1 && <Link href={pageHref(q, q.page - 1)}>Previous page</Link>}
        <span className={ui.muted}>Page {q.page}</span>
        {tasks.length === PER_PAGE && <Link href={pageHref(q, q.page + 1)}>Next page</Link>}
      </nav>
    </HostedFrame>
  );
}
