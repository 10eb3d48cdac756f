'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Field, FormRow } from '@/app/_ui/field';
import { Confirm } from '../_ui/confirm';
import { useChange } from '../_ui/use-change';

type Role = 'owner' | 'developer' | 'viewer';
const ROLES: Array<{ value: Role; label: string }> = [
  { value: 'viewer', label: 'Viewer' },
  { value: 'developer', label: 'Developer' },
  { value: 'owner', label: 'Owner' },
];

/** Adds someone by email: a user of the account is made for an address nobody holds, and they are told by email. */
export function AddMember() {
  const { pending, change } = useChange();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  return (
    <form
      aria-label="Add a member"
      onSubmit={(e) => {
        e.preventDefault();
        void change(() => trpc.console.addMember.mutate({ email, role }), (r) => (r.created ? `${r.member.email} can now use the console.` : `${r.member.email} is now ${r.member.role}.`)).then((r) => r && setEmail(''));
      }}
    >
      <FormRow>
        <Field id="member-email" label="Email">
          <Input id="member-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field id="member-role" label="Role">
          <Select id="member-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </Select>
        </Field>
        <Button type="submit" disabled={pending || !email.trim()}>
          Add member
        </Button>
      </FormRow>
    </form>
  );
}

/**
 * A member's role, applied by its own button (moving through the options with the keyboard never
 * changes anything by itself, WCAG 3.2.2), and removal after a confirmation.
 */
export function MemberActions({ id, email, role }: { id: string; email: string; role: Role }) {
  const { pending, change } = useChange();
  const [choice, setChoice] = useState<Role>(role);
  const [saved, setSaved] = useState<Role>(role);
  // The saved role changed (after a refresh): start again from it.
  if (saved !== role) {
    setSaved(role);
    setChoice(role);
  }
  return (
    <div className="flex flex-wrap items-center gap-1">
      <Select aria-label={`Role of ${email}`} className="w-auto min-w-32" value={choice} disabled={pending} onChange={(e) => setChoice(e.target.value as Role)}>
        {ROLES.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </Select>
      <Button variant="secondary" size="sm" disabled={pending || choice === role} onClick={() => void change(() => trpc.console.setMemberRole.mutate({ memberId: id, role: choice }), `${email} is now ${choice}.`)}>
        Apply<span className="sr-only"> the role of {email}</span>
      </Button>
      <Confirm
        label="Remove"
        srLabel={email}
        disabled={pending}
        title={`Remove ${email} from the console?`}
        description="They keep their user and everything in it, and lose the console at once."
        confirm="Remove member"
        onConfirm={() => void change(() => trpc.console.removeMember.mutate({ memberId: id }), `${email} removed.`)}
      />
    </div>
  );
}
