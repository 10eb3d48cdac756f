import { requireSignedIn } from '@/app/_lib/server-caller';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Pager, pageParam } from '@/app/_ui/pager';
import { Empty } from '@/app/_ui/states';
import ui from '@/app/_ui/ui.module.css';
import { MemoryList, RememberForm, SearchForm } from './memory-list';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Memories · Steward' };

const PER_PAGE = 30;

/**
 * What the assistant remembers about the person: their own memories and their teams' shared
 * ones, newest first, or ranked by a search (the same ranking the assistant recalls with). Each
 * can be changed, pinned (always in the assistant's context) or deleted by its author.
 */
export default async function Memories({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const q = (Array.isArray(params.q) ? params.q[0] : params.q)?.trim().slice(0, 500) ?? '';
  const page = pageParam(params.page);
  const { api, me } = await requireSignedIn(q ? `/memories?q=${encodeURIComponent(q)}` : '/memories');
  const listed = q ? null : await api.memories.list({ page, perPage: PER_PAGE });
  const found = q ? await api.memories.search({ q, limit: 50 }) : null;
  const memories = found?.memories ?? listed?.memories ?? [];
  return (
    <HostedFrame me={me} title="Memories">
      <p className={ui.muted}>
        What your assistant remembers about you and your teams. The memories most relevant to a task or a chat reach it there, pinned ones always. Correct or delete
        anything that is wrong: your assistant can too.
      </p>
      <SearchForm q={q} />
      <Section id="memories-title" title={q ? `Best matches for “${q}”` : 'All memories, newest first'}>
        {memories.length === 0 ? (
          <Empty title={q ? 'Nothing matches.' : 'Your assistant remembers nothing yet.'}>
            {q ? 'Try other words, or clear the search.' : 'It saves what you tell it to keep in mind, and you can add something below.'}
          </Empty>
        ) : (
          <MemoryList memories={memories} />
        )}
        {listed && <Pager label="Memories" param="page" page={listed.page} perPage={listed.perPage} total={listed.total} />}
      </Section>
      <Section id="remember-title" title="Remember something">
        <RememberForm />
      </Section>
    </HostedFrame>
  );
}
