import type { z } from 'zod';
import { invalidFields, type FieldProblem } from './errors';

export function problemsOf(error: z.ZodError, root: string): FieldProblem[] {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join('.') : root,
    problem: issue.message,
  }));
}

/** Parses with the schema or throws a 400 naming each field and its problem. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidFields(problemsOf(result.error, root));
  return result.data;
}

/** Query strings: a key given once is a string, a repeated key an array. */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
