'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import type { Out } from '@/app/_lib/types';
import { Dialog, DialogClose } from '@/app/_ui/dialog';
import { Badge } from '@/app/_ui/states';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';
import { useSave } from '../use-save';
import { ACTION, LOCKER, MODE, SOURCE } from './labels';
import css from './autonomy.module.css';

type Matrix = Out['settings']['matrix']['supervisionMatrix'];
type Cell = Matrix['matrix'][keyof Matrix['matrix']];
type Mode = Cell['mode'];

/** Who locked a cell (company, organization or team), or null. */
function lockOf(m: Matrix, type: string): string | null {
  if (m.parentLockedCells.includes(type)) return LOCKER.parent;
  if (m.orgLockedCells.includes(type)) return LOCKER.org;
  if (m.teamLockedCells.includes(type)) return LOCKER.team;
  return null;
}

function Row({ type, cell, lock, locked }: { type: string; cell: Cell; lock: string | null; locked: { mode: Mode; timeBoxedWindowMin: number | null } | undefined }) {
  const [mode, setMode] = useState<Mode>(cell.mode);
  const [windowMin, setWindowMin] = useState(String(cell.timeBoxedWindowMin ?? 30));
  const [undo, setUndo] = useState(String(cell.undoDelaySec));
  const { pending, save } = useSave();
  const name = ACTION[type]?.label ?? type;
  const changed = mode !== cell.mode || (mode === 'time-boxed' && Number(windowMin) !== cell.timeBoxedWindowMin) || Number(undo) !== cell.undoDelaySec;
  const id = `cell-${type}`;
  return (
    <tr data-action-type={type}>
      <th scope="row">
        {name}
        <div className={ui.meta}>{ACTION[type]?.covers}</div>
      </th>
      <td>
        <select id={`${id}-mode`} aria-label={`${name}: when to send`} value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
          {Object.entries(MODE).map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
        {lock && (
          <p className={css.lock} id={`${id}-lock`}>
            <span aria-hidden="true">🔒</span> Locked by {lock} at “{MODE[locked?.mode ?? cell.mode]}”: you can make it stricter, not looser.
          </p>
        )}
      </td>
      <td>
        <input className={css.num} type="number" min={1} max={10080} aria-label={`${name}: review window in minutes`} value={windowMin} disabled={mode !== 'time-boxed'} onChange={(e) => setWindowMin(e.target.value)} />
      </td>
      <td>
        <input className={css.num} type="number" min={0} max={3600} aria-label={`${name}: undo delay in seconds`} value={undo} onChange={(e) => setUndo(e.target.value)} />
      </td>
      <td>
        <Badge tone={lock ? 'warn' : cell.source === 'user' ? 'accent' : 'plain'}>{lock ? `locked by ${lock}` : SOURCE[cell.source]}</Badge>
      </td>
      <td>
        <button
          className={s.secondary}
          type="button"
          disabled={pending || !changed}
          aria-describedby={lock ? `${id}-lock` : undefined}
          onClick={() =>
            void save(
              () =>
                trpc.settings.patchMatrix.mutate({
                  matrix: { [type]: { mode, undoDelaySec: Number(undo), ...(mode === 'time-boxed' ? { timeBoxedWindowMin: Number(windowMin) } : {}) } },
                }),
              `${name}: saved.`,
            ).then((ok) => {
              if (!ok) {
                setMode(cell.mode);
                setUndo(String(cell.undoDelaySec));
              }
            })
          }
        >
          Save<span className="sr-only"> {name}</span>
        </button>
      </td>
    </tr>
  );
}

/** The autonomy matrix as a grid: one row per action type, each saved on its own; locks shown with who set them. */
export function MatrixGrid({ matrix }: { matrix: Matrix }) {
  const { pending, save } = useSave();
  return (
    <>
      <div className={css.scroll} role="region" aria-label="Autonomy matrix" tabIndex={0}>
        <table className={`${s.table} ${css.grid}`}>
          <caption className="sr-only">When your assistants may act without you, per kind of action</caption>
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">When to send</th>
              <th scope="col">Review window (min)</th>
              <th scope="col">Undo delay (s)</th>
              <th scope="col">Set by</th>
              <th scope="col">
                <span className="sr-only">Save</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(matrix.matrix).map(([type, cell]) => (
              // A fresh row when the saved cell changes, so the controls start from it.
              <Row key={`${type}-${cell.mode}-${cell.undoDelaySec}-${cell.timeBoxedWindowMin}`} type={type} cell={cell} lock={lockOf(matrix, type)} locked={matrix.lockedValues[type]} />
            ))}
          </tbody>
        </table>
      </div>
      <Dialog
        title="Reset your autonomy settings?"
        description="Every cell goes back to your team’s, organization’s or the default value, and every recipient exception is removed."
        trigger={
          <button className={s.secondary} type="button" disabled={pending}>
            Reset to defaults
          </button>
        }
      >
        <div className={ui.actions}>
          <DialogClose asChild>
            <button className={s.danger} type="button" onClick={() => void save(() => trpc.settings.resetMatrix.mutate(), 'Autonomy settings reset.')}>
              Reset
            </button>
          </DialogClose>
          <DialogClose asChild>
            <button className={s.secondary} type="button">
              Keep my settings
            </button>
          </DialogClose>
        </div>
      </Dialog>
    </>
  );
}
