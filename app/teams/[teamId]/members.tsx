'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { ChoiceWithApply } from '@/app/_ui/choice';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import type { TeamMember } from './types';

/** Members, their roles and statuses (invitations are members with status invited), adding people, and ownership transfer. */
export function TeamMembersPanel({ teamId, members, isOwner }: { teamId: string; members: TeamMember[]; isOwner: boolean }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [newOwner, setNewOwner] = useState('');
  const { run, pending, status } = useAction();
  const active = members.filter((m) => m.status === 'active' && m.role !== 'owner');
  return (
    <>
      <table className={s.table} tabIndex={0}>
        <caption className={s.muted}>{members.length} members and invitations</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr key={m.id}>
              <td>{m.user.email}</td>
              <td>
                {m.role === 'owner' ? (
                  'owner'
                ) : (
                  <ChoiceWithApply
                    label={`Team role of ${m.user.email}`}
                    value={m.role}
                    disabled={pending}
                    options={[
                      { value: 'member', label: 'member' },
                      { value: 'admin', label: 'admin' },
                    ]}
                    onApply={(role) => run(() => trpc.teams.updateMember.mutate({ teamId, memberId: m.id, patch: { role: role as 'member' | 'admin' } }), `${m.user.email} is now ${role}`)}
                  />
                )}
              </td>
              <td>
                {m.role === 'owner' ? (
                  m.status
                ) : (
                  <ChoiceWithApply
                    label={`Status of ${m.user.email}`}
                    value={m.status}
                    disabled={pending}
                    options={['active', 'invited', 'archived'].map((v) => ({ value: v, label: v }))}
                    onApply={(status) => run(() => trpc.teams.updateMember.mutate({ teamId, memberId: m.id, patch: { status: status as 'active' | 'invited' | 'archived' } }), `${m.user.email} is now ${status}`)}
                  />
                )}
              </td>
              <td>
                {m.role !== 'owner' && (
                  <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.teams.removeMember.mutate({ teamId, memberId: m.id }), `Removed ${m.user.email}`)}>
                    Remove <span className="sr-only">{m.user.email}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run(() => trpc.teams.addMemberByEmail.mutate({ teamId, email, role }), `Added ${email}`, () => setEmail(''));
        }}
      >
        <div className={s.row}>
          <Field id="add-email" label="Add a person of the organization by email">
            <input id="add-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
          <Field id="add-role" label="Role">
            <select id="add-role" value={role} onChange={(e) => setRole(e.target.value as 'member' | 'admin')}>
              <option value="member">member</option>
              <option value="admin">admin</option>
            </select>
          </Field>
          <button className={s.button} type="submit" disabled={pending}>
            Add to team
          </button>
        </div>
      </form>
      {isOwner && active.length > 0 && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            run(() => trpc.teams.transferOwnership.mutate({ teamId, newOwnerId: newOwner }), 'Ownership transferred');
          }}
        >
          <div className={s.row}>
            <Field id="new-owner" label="Transfer ownership to">
              <select id="new-owner" required value={newOwner} onChange={(e) => setNewOwner(e.target.value)}>
                <option value="">Choose a member</option>
                {active.map((m) => (
                  <option key={m.user.id} value={m.user.id}>
                    {m.user.email}
                  </option>
                ))}
              </select>
            </Field>
            <button className={s.danger} type="submit" disabled={pending}>
              Transfer ownership
            </button>
          </div>
        </form>
      )}
      {status}
    </>
  );
}
