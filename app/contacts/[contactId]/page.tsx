import { ArrowLeft } from 'lucide-react';
import Link from 'next/link';
import { readOrNotFound, requireSignedIn } from '@/app/_lib/server-caller';
import { Avatar } from '@/app/_ui/avatar';
import { Section } from '@/app/_ui/field';
import { HostedFrame } from '@/app/_ui/layout';
import { Fields } from '@/app/_ui/list';
import { Badge } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { RemoveContact } from '../contact-forms';
import { ContactEditor } from './contact-editor';
import { companyOf, phonesOf } from './contact-fields';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Contact · Steward' };

/** One contact: how to reach them, who they are, what the assistant knows, and (when it is the person's own) its edit form. */
export default async function ContactPage({ params }: { params: Promise<{ contactId: string }> }) {
  const { contactId } = await params;
  const { api, me, ctx } = await requireSignedIn(`/contacts/${contactId}`);
  const { contact: c } = await readOrNotFound(api.contacts.get({ contactId }));
  // A teammate's contact shared with the team is read here, and changed only by its owner.
  const mine = c.user === ctx.actor?.user?.id;
  const name = c.name ?? c.email;
  const company = companyOf(c.company);
  const phones = phonesOf(c.phones);
  const others = (c.emails as Array<{ address?: string }>).map((e) => e.address).filter((a): a is string => Boolean(a) && a !== c.email);
  const related = [...(c.outgoingRelationships ?? []), ...(c.incomingRelationships ?? [])];
  return (
    <HostedFrame
      me={me}
      title={name}
      description={[c.title, company].filter(Boolean).join(', ') || undefined}
      actions={mine ? <RemoveContact id={c.id} name={name} afterwards="/contacts" /> : undefined}
    >
      <Link href="/contacts" className="mb-3 inline-flex min-h-11 items-center gap-1.5 text-sm no-underline sm:min-h-8 [&_svg]:size-4">
        <ArrowLeft aria-hidden="true" />
        All contacts
      </Link>
      <Section id="reach" title="How to reach them">
        <div className="mb-3 flex items-center gap-3">
          <Avatar name={name} size="lg" />
          <div className="min-w-0">
            <p className="font-semibold [overflow-wrap:anywhere]">{c.preferredName ? `${name} (${c.preferredName})` : name}</p>
            <p className="flex flex-wrap gap-1.5">
              {c.scope === 'team' && <Badge>Shared with your team</Badge>}
              {!mine && <Badge tone="accent">A teammate’s contact</Badge>}
              {c.tags.map((t) => (
                <Badge key={t}>{t}</Badge>
              ))}
            </p>
          </div>
        </div>
        <Fields
          rows={[
            ['Email', <a key="e" href={`mailto:${c.email}`} className="inline-flex min-h-11 items-center [overflow-wrap:anywhere] sm:min-h-0">{c.email}</a>],
            ...(others.length ? [['Other emails', others.join(', ')] as [string, string]] : []),
            ['Phone', phones.length ? phones.map((p) => `${p.number}${p.type ? ` (${p.type})` : ''}`).join(', ') : <span className="text-muted">Not known</span>],
            ['Timezone', c.timezone ?? <span className="text-muted">Not known</span>],
            ['Last in touch', c.lastContactedAt ? <Time value={c.lastContactedAt} /> : <span className="text-muted">Not yet</span>],
            ['Added', <Time key="a" value={c.createdAt} />],
          ]}
        />
        {related.length > 0 && (
          <>
            <h3 className="mt-4 mb-1">Related people</h3>
            <ul className="flex flex-col gap-1">
              {related.map((r) => (
                <li key={r.id}>
                  <Link href={`/contacts/${r.contact.id}`}>{r.contact.name ?? r.contact.email}</Link> <span className="text-muted">({r.type})</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </Section>
      {mine && (
        <Section id="edit" title="Change the details" description="Your assistant uses these when it writes or calls for you.">
          <ContactEditor
            contactId={c.id}
            phones={phones}
            initial={{ name: c.name ?? '', preferredName: c.preferredName ?? '', title: c.title ?? '', company: company ?? '', phone: phones[0]?.number ?? '', timezone: c.timezone ?? '', tags: c.tags.join(', '), shared: c.scope === 'team' }}
          />
        </Section>
      )}
    </HostedFrame>
  );
}
