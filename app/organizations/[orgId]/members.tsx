'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { ChoiceWithApply } from '@/app/_ui/choice';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import type { OrgMember } from './types';

export function MembersPanel({ orgId, members, total, canEdit, selfId }: { orgId: string; members: OrgMember[]; total: number; canEdit: boolean; selfId: string }) {
  const [email, setEmail] = useState('');
  const { run, pending, status } = useAction();
  return (
    <>
      <table className={s.table} tabIndex={0}>
        <caption className={s.muted}>{total} members</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            {canEdit && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr key={m.id}>
              <td>{m.name ?? '—'}</td>
              <td>{m.email}</td>
              <td>
                {canEdit ? (
                  <ChoiceWithApply
                    label={`Organization role of ${m.email}`}
                    value={m.organizationRole}
                    disabled={pending}
                    options={['member', 'admin', 'guest'].map((r) => ({ value: r, label: r }))}
                    onApply={(role) => run(() => trpc.organizations.setRole.mutate({ orgId, userId: m.id, role: role as 'admin' | 'member' | 'guest' }), `${m.email} is now ${role}`)}
                  />
                ) : (
                  m.organizationRole
                )}
              </td>
              {canEdit && (
                <td>
                  {m.id !== selfId && (
                    <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.organizations.removeMember.mutate({ orgId, userId: m.id }), `Removed ${m.email}`)}>
                      Remove <span className="sr-only">{m.email}</span>
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {canEdit && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            run(() => trpc.organizations.addMember.mutate({ orgId, member: { email } }), `Invited ${email}`, () => setEmail(''));
          }}
        >
          <div className={s.row}>
            <Field id="member-email" label="Add a member by email">
              <input id="member-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            </Field>
            <button className={s.button} type="submit" disabled={pending}>
              Add member
            </button>
          </div>
        </form>
      )}
      {status}
    </>
  );
}
