'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Checkbox, Input, Select } from '@/app/_ui/controls';
import { Field, FormRow } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Confirm } from '../_ui/confirm';
import { useChange } from '../_ui/use-change';

type Switch = { name: string; label: string; value: 'on' | 'off' | null; locked: boolean; effective: 'on' | 'off' };

/** Every switch at once: on, off or inherit, and whether it is locked for the tiers below. */
export function CapabilitiesForm({ switches }: { switches: Switch[] }) {
  const { pending, change } = useChange();
  const [state, setState] = useState(() => Object.fromEntries(switches.map((sw) => [sw.name, { value: sw.value, locked: sw.locked }])));
  const set = (name: string, patch: Partial<{ value: 'on' | 'off' | null; locked: boolean }>) => setState((all) => ({ ...all, [name]: { ...all[name]!, ...patch } }));
  return (
    <form
      aria-label="Capability switches"
      onSubmit={(e) => {
        e.preventDefault();
        const capabilities = Object.fromEntries(switches.flatMap((sw) => [[sw.name, state[sw.name]!.value], [`${sw.name}Locked`, state[sw.name]!.value === null ? false : state[sw.name]!.locked]]));
        void change(() => trpc.console.settings.setCapabilities.mutate({ capabilities }), 'Capability switches saved.');
      }}
    >
      <Table label="Capability switches" head={['Capability', 'Account setting', 'Locked for everyone below', 'In force']}>
        {switches.map((sw) => (
          <tr key={sw.name}>
            <td>{sw.label}</td>
            <td className="min-w-36">
              <Select aria-label={`${sw.label}: account setting`} value={state[sw.name]!.value ?? ''} onChange={(e) => set(sw.name, { value: (e.target.value || null) as 'on' | 'off' | null })}>
                <option value="">Inherit (on)</option>
                <option value="on">On</option>
                <option value="off">Off</option>
              </Select>
            </td>
            <td>
              <Checkbox
                aria-label={`Lock ${sw.label} for organizations and teams`}
                checked={state[sw.name]!.value !== null && state[sw.name]!.locked}
                disabled={state[sw.name]!.value === null}
                onChange={(e) => set(sw.name, { locked: e.target.checked })}
              />
            </td>
            <td>{sw.effective === 'on' ? 'On' : 'Off'}</td>
          </tr>
        ))}
      </Table>
      <div className="mt-3">
        <Button type="submit" disabled={pending}>
          Save switches
        </Button>
      </div>
    </form>
  );
}

type Option = { value: string; label: string };

/** Locks one action type, for the account or one organization. */
export function LockForm({ actionTypes, modes, organizations }: { actionTypes: Option[]; modes: Option[]; organizations: Array<{ id: string; name: string }> }) {
  const { pending, change } = useChange();
  const [where, setWhere] = useState('');
  const [actionType, setActionType] = useState(actionTypes[0]?.value ?? '');
  const [mode, setMode] = useState('manual');
  const [windowMin, setWindowMin] = useState('30');
  return (
    <form
      aria-label="Add or change a lock"
      onSubmit={(e) => {
        e.preventDefault();
        void change(
          () =>
            trpc.console.settings.setLock.mutate({
              actionType: actionType as never,
              mode: mode as 'auto' | 'time-boxed' | 'manual',
              ...(where ? { organizationId: where } : {}),
              ...(mode === 'time-boxed' ? { timeBoxedWindowMin: Number(windowMin) } : {}),
            }),
          'Lock saved.',
        );
      }}
    >
      <FormRow>
        <Field id="lock-where" label="Where">
          <Select id="lock-where" value={where} onChange={(e) => setWhere(e.target.value)}>
            <option value="">Whole account</option>
            {organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="lock-action" label="Action">
          <Select id="lock-action" value={actionType} onChange={(e) => setActionType(e.target.value)}>
            {actionTypes.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="lock-mode" label="Lock to">
          <Select id="lock-mode" value={mode} onChange={(e) => setMode(e.target.value)}>
            {modes.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </Select>
        </Field>
        {mode === 'time-boxed' && (
          <Field id="lock-window" label="Undo window (minutes)">
            <Input id="lock-window" type="number" min={1} max={10080} required value={windowMin} onChange={(e) => setWindowMin(e.target.value)} />
          </Field>
        )}
        <Button type="submit" disabled={pending}>
          Save lock
        </Button>
      </FormRow>
    </form>
  );
}

export function ClearLock({ organizationId, actionType, label }: { organizationId: string | null; actionType: string; label: string }) {
  const { pending, change } = useChange();
  return (
    <Confirm
      label="Remove"
      srLabel={`lock on ${label}`}
      danger={false}
      disabled={pending}
      title={`Remove the lock on ${label}?`}
      description="Members’ own settings decide again, within any other lock."
      confirm="Remove lock"
      onConfirm={() => void change(() => trpc.console.settings.setLock.mutate({ actionType: actionType as never, clear: true, ...(organizationId ? { organizationId } : {}) }), 'Lock removed.')}
    />
  );
}
