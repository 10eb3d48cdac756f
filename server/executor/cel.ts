import { evaluate } from '@marcbachmann/cel-js';

/** CEL integers are not doubles: whole JS numbers become BigInt so `event.data.n > 1` compares. */
function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCel);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
  return v;
}

/** Evaluates an Inngest expression (`if`, trigger `expression`, cancel `if`); an error counts as no match. */
export function matches(expression: string | undefined | null, vars: Record<string, unknown>): boolean {
  if (!expression) return true;
  try {
    return evaluate(expression, toCel(vars) as Record<string, unknown>) === true;
  } catch {
    return false;
  }
}

/** A concurrency key expression's value for an event, as a string. */
export function keyValue(expression: string, vars: Record<string, unknown>): string {
  try {
    return String(evaluate(expression, toCel(vars) as Record<string, unknown>));
  } catch {
    return '';
  }
}
