import type { z } from 'zod';
import { AppError, invalidFields, type FieldProblem } from './errors';

export function problemsOf(error: z.ZodError, root: string): FieldProblem[] {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join('.') : root,
    problem: issue.message,
  }));
}

/**
 * Parses with the schema or throws a 400 naming each field and its problem. Text that
 * PostgreSQL cannot store is refused first, whatever the schema says, so no endpoint
 * can pass it on to a query and fail there.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root: string): z.output<S> {
  const unstorable = unstorableText(value, root);
  if (unstorable.length) throw invalidFields(unstorable);
  let result: z.ZodSafeParseResult<z.output<S>>;
  try {
    result = schema.safeParse(value);
  } catch {
    // A refinement that throws instead of reporting an issue: only the input can have caused
    // it (schemas parse synchronously, with nothing else to fail), so it is still a 400.
    throw invalidFields([{ field: root, problem: 'could not be validated' }]);
  }
  if (!result.success) throw invalidFields(problemsOf(result.error, root));
  return result.data;
}

/**
 * A provider's payload (a text, a call step) parsed with the schema, or a 400 naming each field. No
 * storable-text check first: what someone wrote is stored with what PostgreSQL cannot keep replaced
 * (db/storable.ts), never refused, since a provider does not send a refused message again.
 */
export function parsePayload<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidFields(problemsOf(result.error, 'body'));
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

/**
 * Deeper JSON buys nothing any endpoint needs, while every layer after parsing (Zod,
 * JSON.stringify for jsonb, PostgreSQL's own parser) recurses and would overflow.
 */
export const MAX_JSON_DEPTH = 64;

// PostgreSQL refuses U+0000 in text and jsonb, and a lone UTF-16 surrogate has no UTF-8 form.
const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const SUSPECT = /[\u0000\ud800-\udfff]/;

function textProblem(s: string): string | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes(NUL)) return 'must not contain a NUL character';
  if (LONE_SURROGATE.test(s)) return 'is not valid UTF-8 (lone surrogate)';
  return null;
}

/**
 * Every string and object key in a parsed request part that cannot be stored, named
 * `<root>.<path>` (`body.name`, `path.userId`, `query.externalId`): the same name can be in
 * the path and in the body. Walked without recursion so that depth alone cannot overflow
 * the stack; anything nested deeper than MAX_JSON_DEPTH is refused as well.
 */
export function unstorableText(value: unknown, root: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: root, depth: 0 }];
  while (stack.length && problems.length < 20) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const p = textProblem(v);
      if (p) problems.push({ field: path, problem: p });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push({ field: path, problem: `nested deeper than ${MAX_JSON_DEPTH} levels` });
      continue;
    }
    const entries = Array.isArray(v) ? v.map((item, i) => [String(i), item] as const) : Object.entries(v);
    for (const [k, item] of entries) {
      const keyProblem = textProblem(k);
      const printable = keyProblem ? JSON.stringify(k).slice(1, -1) : k;
      if (keyProblem) problems.push({ field: `${path}.${printable}`, problem: `key ${keyProblem}` });
      else stack.push({ v: item, path: `${path}.${printable}`, depth: depth + 1 });
    }
  }
  return problems;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON request body from its bytes. Decoding is strict: a lenient decoder would turn
 * invalid UTF-8 into U+FFFD and store text the client never sent. Empty means `{}`.
 */
export function decodeJsonBody(bytes: ArrayBuffer | Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError(400, 'bad_request', 'body: not valid UTF-8', { fields: [{ field: 'body', problem: 'not valid UTF-8' }] });
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(400, 'bad_request', 'body: malformed JSON');
  }
}
