'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import s from '@/app/_ui/hosted.module.css';

export type SwitchRow = { name: string; label: string; hint: string; value: 'on' | 'off' | null; locked: boolean; lockedAbove: 'on' | 'off' | null; effective: 'on' | 'off' };

const VALUES = [
  { value: '', label: 'Inherit from the account' },
  { value: 'on', label: 'On' },
  { value: 'off', label: 'Off' },
];

/** The organization's switches: on, off or inherited, each lockable for the organization's teams. */
export function CapabilitiesForm({ orgId, rows }: { orgId: string; rows: SwitchRow[] }) {
  const [state, setState] = useState(() => Object.fromEntries(rows.map((r) => [r.name, { value: r.value ?? '', locked: r.locked }])));
  const { run, pending, status } = useAction();
  const changed = rows.filter((r) => (state[r.name]!.value || null) !== r.value || state[r.name]!.locked !== r.locked);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const capabilities = Object.fromEntries(
          changed.flatMap((r) => {
            const v = state[r.name]!;
            return [
              [r.name, v.value || null],
              [`${r.name}Locked`, v.value ? v.locked : false],
            ];
          }),
        );
        run(() => trpc.organizations.setCapabilities.mutate({ orgId, capabilities }), 'Saved');
      }}
    >
      <table className={s.table} tabIndex={0}>
        <caption className="sr-only">Capability switches</caption>
        <thead>
          <tr>
            <th scope="col">Capability</th>
            <th scope="col">This organization</th>
            <th scope="col">Lock for teams</th>
            <th scope="col">In effect</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const v = state[r.name]!;
            const id = `cap-${r.name}`;
            return (
              <tr key={r.name}>
                <th scope="row">
                  <label htmlFor={id}>{r.label}</label>
                  <br />
                  <small className={s.muted}>{r.hint}</small>
                </th>
                <td>
                  {r.lockedAbove ? (
                    <span>Locked by the account: {r.lockedAbove}</span>
                  ) : (
                    <select id={id} value={v.value} onChange={(e) => setState({ ...state, [r.name]: { ...v, value: e.target.value } })}>
                      {VALUES.map((o) => (
                        <option key={o.value} value={o.value}>
                          {o.label}
                        </option>
                      ))}
                    </select>
                  )}
                </td>
                <td>
                  <label className="inline-flex min-h-11 min-w-11 cursor-pointer items-center justify-center">
                    <input
                      type="checkbox"
                      aria-label={`Lock ${r.label} for teams`}
                      checked={v.locked}
                      disabled={Boolean(r.lockedAbove) || !v.value}
                      onChange={(e) => setState({ ...state, [r.name]: { ...v, locked: e.target.checked } })}
                    />
                  </label>
                </td>
                <td>{r.effective === 'on' ? 'On' : 'Off'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <button className={s.button} type="submit" disabled={pending || changed.length === 0}>
        Save capabilities
      </button>
      {status}
    </form>
  );
}
