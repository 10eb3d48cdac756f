import type { TriggerDef } from './contracts';

/** A trigger with its place in the workflow: `2` for the third, `2.0` for a compound's first part. */
export type Placed = { key: string; trigger: TriggerDef; parent: { key: string; trigger: Extract<TriggerDef, { on: 'compound' }>; index: number } | null };

/** Every trigger of a workflow, compound parts included, with their keys. */
export function walk(triggers: TriggerDef[]): Placed[] {
  const out: Placed[] = [];
  triggers.forEach((t, i) => {
    out.push({ key: String(i), trigger: t, parent: null });
    if (t.on === 'compound') t.triggers.forEach((c, j) => out.push({ key: `${i}.${j}`, trigger: c, parent: { key: String(i), trigger: t, index: j } }));
  });
  return out;
}

export const find = (triggers: TriggerDef[], key: string) => walk(triggers).find((p) => p.key === key) ?? null;
