'use client';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { ChoiceWithApply } from '@/app/_ui/choice';
import s from '@/app/_ui/hosted.module.css';
import type { TeamPolicy } from './types';

const SWITCHES = [
  { key: 'workspaceCli', label: 'Workspace shell' },
  { key: 'browserAutomation', label: 'Browser automation' },
  { key: 'workspaceHandoff', label: 'Workspace handoff' },
  { key: 'mcpServers', label: 'MCP servers' },
] as const;

/** Policy switches (on, off or inherited), their locks, and the restricted preset. */
export function PolicyPanel({ teamId, policy }: { teamId: string; policy: TeamPolicy }) {
  const caps = policy.settings.capabilities as Record<string, unknown>;
  const { run, pending, status } = useAction();
  const patch = (capabilities: Record<string, unknown>, msg: string) => run(() => trpc.teams.patchPolicy.mutate({ teamId, patch: { capabilities } }), msg);
  return (
    <>
      <p>
        Preset: <strong>{policy.preset ?? 'none'}</strong>
      </p>
      <table className={s.table} tabIndex={0}>
        <thead>
          <tr>
            <th scope="col">Capability</th>
            <th scope="col">Team setting</th>
            <th scope="col">Locked for members</th>
            <th scope="col">In effect</th>
          </tr>
        </thead>
        <tbody>
          {SWITCHES.map(({ key, label }) => {
            const value = (caps[key] as string | null | undefined) ?? '';
            const locked = Boolean(caps[`${key}Locked`]);
            return (
              <tr key={key}>
                <th scope="row">{label}</th>
                <td>
                  <ChoiceWithApply
                    label={`${label} setting`}
                    value={value}
                    disabled={pending}
                    options={[
                      { value: '', label: 'inherit' },
                      { value: 'on', label: 'on' },
                      { value: 'off', label: 'off' },
                    ]}
                    onApply={(v) => patch({ [key]: v || null }, `${label}: ${v || 'inherited'}`)}
                  />
                </td>
                <td>
                  <label className="inline-flex min-h-11 min-w-11 cursor-pointer items-center justify-center">
                    <input
                      type="checkbox"
                      aria-label={`Lock ${label}`}
                      checked={locked}
                      disabled={pending}
                      onChange={(e) => patch({ [`${key}Locked`]: e.target.checked, ...(e.target.checked && !value ? { [key]: policy.effective.capabilities[key] ?? 'on' } : {}) }, `${label} ${e.target.checked ? 'locked' : 'unlocked'}`)}
                    />
                  </label>
                </td>
                <td>{policy.effective.capabilities[key] ?? '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <button className={s.danger} type="button" disabled={pending} onClick={() => run(() => trpc.teams.applyRestrictedPreset.mutate({ teamId }), 'Restricted preset applied')}>
        Apply the restricted preset
      </button>
      {status}
    </>
  );
}
