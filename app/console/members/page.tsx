import { Section } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Badge } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { ROLE_LABELS } from '@/server/console/roles';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { AddMember, MemberActions } from './member-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Console members · Console · Steward' };

/** Who may open the console, and with which role (spec 6). Owners add, change and remove members. */
export default async function ConsoleMembers() {
  const { api, isOwner, member: me } = await consoleSession('/console/members');
  const { members } = await api.console.members();
  return (
    <>
      <PageHead
        title="Console members"
        description="Viewers read every page and change nothing. Developers change the account’s settings. Owners also manage who is a member. Members sign in like everyone else, with their email or their organization’s single sign-on."
      />
      {isOwner && (
        <Section id="add" title="Add a member" description="Someone without a user in the account gets one, and an email saying where to sign in.">
          <AddMember />
        </Section>
      )}
      <Section id="members" title="Members" bare>
        <Table label="Console members" head={['Member', 'Role', 'Since', ...(isOwner ? ['Actions'] : [])]}>
          {members.map((m) => (
            <tr key={m.id}>
              <td className="[overflow-wrap:anywhere]">
                {m.name ?? m.email}
                {m.name ? <span className="block text-xs text-muted">{m.email}</span> : null}
                {m.id === me.memberId ? <span className="text-muted"> (you)</span> : null}
              </td>
              <td>
                <Badge tone={m.role === 'viewer' ? 'plain' : 'accent'}>{ROLE_LABELS[m.role]}</Badge>
              </td>
              <td className="whitespace-nowrap">
                <Time value={m.createdAt} />
              </td>
              {isOwner && (
                <td>
                  <MemberActions id={m.id} email={m.email} role={m.role} />
                </td>
              )}
            </tr>
          ))}
        </Table>
      </Section>
    </>
  );
}
