'use client';
import { Lock } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ACTION, MODE } from '@/app/settings/autonomy/labels';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Badge } from '@/app/_ui/states';
import { useNotify } from '@/app/_ui/toast';
import type { TeamPolicy } from './types';

type Cell = { mode: 'auto' | 'time-boxed' | 'manual' | null; timeBoxedWindowMin: number | null };
type Matrix = Record<string, Cell | undefined>;

/**
 * The team's approval matrix: for each kind of action, how members' assistants send it (unless a
 * member chose otherwise): inherited from the organization, at once, after a review window, or
 * only when approved. Cells the organization locked are shown and cannot change. One Save for
 * the whole table; only changed cells are sent (the policy service checks locks and windows).
 */
export function TeamMatrix({ teamId, policy }: { teamId: string; policy: TeamPolicy }) {
  const router = useRouter();
  const notify = useNotify();
  const settings = policy.settings as unknown as { approvalSettings?: { matrix: Matrix | null; organizationLocked: Record<string, Cell> } };
  const saved: Matrix = settings.approvalSettings?.matrix ?? {};
  const locked = settings.approvalSettings?.organizationLocked ?? {};
  const [draft, setDraft] = useState<Matrix>(saved);
  const [pending, setPending] = useState(false);
  const actions = Object.keys(ACTION);
  const changed = actions.filter((a) => JSON.stringify(draft[a] ?? null) !== JSON.stringify(saved[a] ?? null));
  const set = (a: string, cell: Cell | undefined) => setDraft((d) => ({ ...d, [a]: cell }));
  const save = async () => {
    setPending(true);
    try {
      const patch = Object.fromEntries(changed.map((a) => [a, draft[a]?.mode ? { mode: draft[a]!.mode, timeBoxedWindowMin: draft[a]!.mode === 'time-boxed' ? (draft[a]!.timeBoxedWindowMin ?? 30) : null } : null]));
      await trpc.teams.patchPolicy.mutate({ teamId, patch: { approvalSettings: { matrix: patch as never } } });
      notify('ok', 'Approval rules saved.');
      router.refresh();
    } catch (e) {
      notify('error', describeError(e).message);
    } finally {
      setPending(false);
    }
  };
  return (
    <form
      aria-label="Team approval rules"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="overflow-x-auto">
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">How members’ assistants send each kind of action</caption>
          <thead className="text-left text-xs text-muted">
            <tr>
              <th scope="col" className="py-2 pr-3 font-semibold">
                Action
              </th>
              <th scope="col" className="py-2 pr-3 font-semibold">
                When to send
              </th>
              <th scope="col" className="py-2 font-semibold">
                Review window
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-border">
            {actions.map((a) => {
              const lock = locked[a];
              const cell = draft[a];
              return (
                <tr key={a}>
                  <th scope="row" className="py-2 pr-3 text-left font-medium">
                    {ACTION[a]!.label}
                    <span className="block text-xs font-normal text-muted">{ACTION[a]!.covers}</span>
                  </th>
                  <td className="py-2 pr-3">
                    {lock ? (
                      <Badge tone="warn">
                        <Lock aria-hidden="true" className="size-3" />
                        {MODE[lock.mode ?? ''] ?? 'Locked'} (set by your organization)
                      </Badge>
                    ) : (
                      <Select aria-label={`${ACTION[a]!.label}: when to send`} value={cell?.mode ?? ''} disabled={pending} onChange={(e) => set(a, e.target.value ? { mode: e.target.value as Cell['mode'], timeBoxedWindowMin: cell?.timeBoxedWindowMin ?? 30 } : undefined)}>
                        <option value="">As the organization says</option>
                        {Object.entries(MODE).map(([m, label]) => (
                          <option key={m} value={m}>
                            {label}
                          </option>
                        ))}
                      </Select>
                    )}
                  </td>
                  <td className="py-2">
                    {!lock && cell?.mode === 'time-boxed' ? (
                      <span className="inline-flex items-center gap-2">
                        <Input
                          type="number"
                          min={1}
                          max={10080}
                          aria-label={`${ACTION[a]!.label}: review window in minutes`}
                          className="w-24"
                          value={cell.timeBoxedWindowMin ?? 30}
                          onChange={(e) => set(a, { mode: 'time-boxed', timeBoxedWindowMin: Number(e.target.value) || null })}
                        />
                        min
                      </span>
                    ) : (
                      <span className="text-muted">—</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="mt-4 flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={pending || changed.length === 0}>
          Save approval rules
        </Button>
        {changed.length > 0 && <span className="text-sm text-muted">{changed.length === 1 ? 'One change' : `${changed.length} changes`} not saved yet</span>}
      </div>
    </form>
  );
}
