import { Search, Users } from 'lucide-react';
import Link from 'next/link';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { Avatar } from '@/app/_ui/avatar';
import { Button } from '@/app/_ui/button';
import { Input } from '@/app/_ui/controls';
import { HostedFrame } from '@/app/_ui/layout';
import { Row, RowList } from '@/app/_ui/list';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { AddContact, RemoveContact } from './contact-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Contacts · Steward' };

const PER_PAGE = 50;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.slice(0, 300) || undefined;

/** The people your assistant knows: search, add, remove. */
export default async function Contacts({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const q = await searchParams;
  const search = one(q.search);
  const page = Math.max(1, Number(one(q.page)) || 1);
  const { api, me } = await requireSignedIn('/contacts');
  const { contacts, total } = await api.contacts.list({ search, page, perPage: PER_PAGE });
  return (
    <HostedFrame me={me} title="Contacts" width="wide" description="The people your assistant knows and writes to for you." actions={<AddContact />}>
      <form method="get" action="/contacts" role="search" aria-label="Contacts" className="mb-4 flex items-end gap-2">
        <div className="flex-1">
          <label htmlFor="contact-search" className="mb-1.5 block text-sm font-medium">
            Search names, emails and companies
          </label>
          <Input id="contact-search" name="search" type="search" defaultValue={search ?? ''} maxLength={300} />
        </div>
        <Button type="submit" variant="secondary">
          <Search aria-hidden="true" />
          Search
        </Button>
      </form>
      {contacts.length === 0 ? (
        <Empty title={search ? 'No contact matches.' : 'No contacts yet.'} icon={Users}>
          <p>{search ? 'Try another name or address.' : 'Your assistant adds the people you work with as it meets them; you can add some yourself.'}</p>
        </Empty>
      ) : (
        <RowList label="Contacts">
          {contacts.map((c) => (
            <Row
              key={c.id}
              titleAs="h2"
              lead={<Avatar name={c.name ?? c.email} size="sm" />}
              title={c.name ?? c.email}
              href={`/contacts/${c.id}`}
              meta={
                <>
                  <span className="[overflow-wrap:anywhere]">{c.email}</span>
                  {c.title || (c.company as { name?: string } | null)?.name ? (
                    <>
                      <span aria-hidden="true">·</span>
                      <span>{[c.title, (c.company as { name?: string } | null)?.name].filter(Boolean).join(', ')}</span>
                    </>
                  ) : null}
                  {c.lastContactedAt && (
                    <>
                      <span aria-hidden="true">·</span>
                      <span>
                        last in touch <Time value={c.lastContactedAt} />
                      </span>
                    </>
                  )}
                </>
              }
              trail={
                <>
                  {c.scope === 'team' && <Badge>Team</Badge>}
                  <RemoveContact id={c.id} name={c.name ?? c.email} />
                </>
              }
            />
          ))}
        </RowList>
      )}
      {total > PER_PAGE && (
        <nav aria-label="Contact pages" className="mt-4 flex gap-4 text-sm">
          {page > 1 && <Link href={`/contacts?${new URLSearchParams({ ...(search ? { search } : {}), page: String(page - 1) })}`}>Previous page</Link>}
          <span className="text-muted">
            Page {page} of {Math.ceil(total / PER_PAGE)}
          </span>
          {page * PER_PAGE < total && <Link href={`/contacts?${new URLSearchParams({ ...(search ? { search } : {}), page: String(page + 1) })}`}>Next page</Link>}
        </nav>
      )}
    </HostedFrame>
  );
}
