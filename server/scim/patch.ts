import type { Filter } from 'scim2-parse-filter';
import { badRequest } from '@/server/http/errors';
import { PatchOps } from './contracts';
import { scimBadRequest, type ScimType } from './errors';
import { compileValueFilter, type Test } from './filter';
import { findAttribute, sameScalar, stripSchemaUrn, type Attribute, type ResourceSchema } from './schema';

/**
 * RFC 7644 §3.5.2 PATCH over a resource's SCIM view, driven by its schema (schema.ts): every
 * operation is applied or refused with its SCIM error type, never dropped. What it accepts of
 * Okta and Entra besides the RFC's own forms:
 * - `Add` / `Replace` / `Remove` in any case, booleans as "True" / "False";
 * - a path-less value whose keys are paths (`{"name.givenName": "…"}`), applied key by key;
 * - Entra's `{"op":"Remove","path":"members","value":[{"value":"<id>"}]}`: removes exactly those.
 * Attributes the schema does not define are `invalidPath`; changing a readOnly or immutable one
 * is `mutability` (repeating its current value is not a change).
 */

type Op = { op: 'add' | 'remove' | 'replace'; path?: string; value?: unknown };
type Json = Record<string, unknown>;
type Target = { def: Attribute; filter?: { test: Test; ast: Filter }; sub?: Attribute };

const fail = (type: ScimType, n: number, detail: string) => scimBadRequest(type, `Operations.${n}: ${detail}`);
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Reads the body's operations; a body of the wrong shape is 400 naming each problem. */
export function readOperations(raw: unknown): Op[] {
  const parsed = PatchOps.safeParse(raw);
  if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return parsed.data.Operations.map((o, n) => {
    const op = o.op.toLowerCase();
    if (op !== 'add' && op !== 'remove' && op !== 'replace') throw fail('invalidSyntax', n, `op must be add, remove or replace, not ${o.op}`);
    return { op, path: o.path, value: o.value };
  });
}

function target(schema: ResourceSchema, path: string, n: number): Target {
  if (path.length > 1000) throw fail('invalidPath', n, 'path: at most 1000 characters');
  const bare = stripSchemaUrn(schema, path.trim());
  if (bare === null) throw fail('invalidPath', n, `${path} is in a schema this server does not serve (only ${schema.id})`);
  const m = /^([A-Za-z$][\w$-]*)(?:\[(.*)\])?(?:\.([A-Za-z$][\w$-]*))?$/s.exec(bare);
  if (!m) throw fail('invalidPath', n, `path ${path} is malformed`);
  const def = findAttribute(schema.attributes, m[1]);
  if (!def) throw fail('invalidPath', n, `${m[1]} is not an attribute this server keeps (see /Schemas)`);
  const sub = m[3] === undefined ? undefined : findAttribute(def.subAttributes, m[3]);
  if (m[3] !== undefined && !sub) throw fail('invalidPath', n, `${def.name}.${m[3]} is not an attribute this server keeps (see /Schemas)`);
  // A readOnly part of a writable attribute (members.display) would be dropped when stored: refused instead.
  if (sub?.mutability === 'readOnly' && def.mutability !== 'readOnly') throw scimBadRequest('mutability', `${def.name}.${sub.name}: read-only. ${sub.description}`);
  if (m[2] === undefined) return { def, sub };
  if (!def.multiValued) throw fail('invalidPath', n, `${def.name} is single-valued: it takes no [filter]`);
  return { def, sub, filter: compileValueFilter(def, m[2], (d) => fail('invalidPath', n, d)) };
}

/** A value as the attribute's type has it: Entra's "True" / "False" become booleans. */
function coerce(def: Attribute, v: unknown): unknown {
  if (def.type === 'boolean' && typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (def.type === 'complex' && isObject(v)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => {
      const sub = findAttribute(def.subAttributes, k);
      return sub ? [sub.name, coerce(sub, x)] : [k, x];
    }));
  }
  return v;
}

/** The items a multi-valued complex attribute receives: a list of objects, each with its `value`. */
function items(def: Attribute, value: unknown, n: number): Json[] {
  const list = Array.isArray(value) ? value : isObject(value) ? [value] : null;
  const keyed = findAttribute(def.subAttributes, 'value');
  if (!list || list.some((x) => !isObject(x) || (keyed && typeof (x as Json).value !== 'string'))) {
    throw fail('invalidValue', n, `value: ${def.name} must be a list of {value}`);
  }
  return list.map((x) => coerce(def, x) as Json);
}

/** Two elements of a multi-valued attribute are the same one when their `value`s are. */
function sameElement(def: Attribute, a: unknown, b: unknown): boolean {
  const keyed = findAttribute(def.subAttributes, 'value');
  if (keyed && isObject(a) && isObject(b)) return sameScalar(keyed, a.value, b.value);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `type eq "work"` (or several joined by and): the element an add through a filter creates when none matches. */
function seedOf(f: Filter): Json | null {
  if (f.op === 'eq') return { [f.attrPath]: f.compValue };
  if (f.op === 'and') {
    const parts = f.filters.map(seedOf);
    return parts.every(Boolean) ? Object.assign({}, ...parts) : null;
  }
  return null;
}

function mergeInto(def: Attribute, into: Json, value: unknown, n: number) {
  if (!isObject(value)) throw fail('invalidValue', n, `value: ${def.name} takes an object of its sub-attributes`);
  for (const [k, x] of Object.entries(value)) {
    const sub = findAttribute(def.subAttributes, k);
    if (!sub) {
      // Elements of a multi-valued attribute are known by their value; extra keys (display, $ref) describe them.
      if (def.multiValued) continue;
      throw fail('invalidPath', n, `${def.name}.${k} is not an attribute this server keeps (see /Schemas)`);
    }
    into[sub.name] = coerce(sub, x);
  }
}

function remove(view: Json, t: Target, value: unknown, n: number) {
  const key = t.def.name;
  const list = Array.isArray(view[key]) ? (view[key] as Json[]) : [];
  if (t.filter) {
    if (t.sub) for (const el of list.filter(t.filter.test)) delete el[t.sub.name];
    else view[key] = list.filter((el) => !t.filter!.test(el));
  } else if (t.sub) {
    if (t.def.multiValued) for (const el of list) delete el[t.sub.name];
    else if (isObject(view[key])) delete (view[key] as Json)[t.sub.name];
  } else if (value !== undefined && t.def.multiValued) {
    const gone = items(t.def, value, n);
    view[key] = list.filter((el) => !gone.some((g) => sameElement(t.def, el, g)));
  } else {
    delete view[key];
  }
}

function addOrReplace(view: Json, t: Target, op: 'add' | 'replace', value: unknown, n: number) {
  const key = t.def.name;
  const list = Array.isArray(view[key]) ? (view[key] as Json[]) : [];
  if (t.filter) {
    const matches = list.filter(t.filter.test);
    if (!matches.length) {
      const seed = seedOf(t.filter.ast);
      if (!seed) throw fail('noTarget', n, `no value of ${key} matches the path's filter`);
      const el = coerce(t.def, seed) as Json;
      if (t.sub) el[t.sub.name] = coerce(t.sub, value);
      else mergeInto(t.def, el, value, n);
      view[key] = [...list, el];
      return;
    }
    for (const el of matches) {
      if (t.sub) el[t.sub.name] = coerce(t.sub, value);
      else {
        if (op === 'replace') for (const k of Object.keys(el)) delete el[k];
        mergeInto(t.def, el, value, n);
      }
    }
  } else if (t.sub) {
    if (t.def.multiValued) {
      if (!list.length) throw fail('noTarget', n, `${key} has no value to set ${t.sub.name} on`);
      for (const el of list) el[t.sub.name] = coerce(t.sub, value);
    } else {
      view[key] = { ...(isObject(view[key]) ? (view[key] as Json) : {}), [t.sub.name]: coerce(t.sub, value) };
    }
  } else if (t.def.multiValued) {
    const incoming = t.def.type === 'complex' ? items(t.def, value, n) : Array.isArray(value) ? value : [value];
    view[key] = op === 'replace' ? incoming : [...list, ...incoming.filter((x) => !list.some((el) => sameElement(t.def, el, x)))];
  } else if (t.def.type === 'complex') {
    // RFC 7644 §3.5.2.3: sub-attributes not in the value are left as they are, for add and replace alike.
    const into = isObject(view[key]) ? { ...(view[key] as Json) } : {};
    mergeInto(t.def, into, value, n);
    view[key] = into;
  } else {
    view[key] = coerce(t.def, value);
  }
}

/** Whether an attribute holds the same value before and after (multi-valued: the same set of values). */
function unchanged(def: Attribute, before: unknown, after: unknown): boolean {
  if (def.multiValued && def.type === 'complex' && findAttribute(def.subAttributes, 'value')) {
    const keyed = findAttribute(def.subAttributes, 'value')!;
    const set = (v: unknown) => [...new Set((Array.isArray(v) ? v : []).map((el) => (isObject(el) ? el.value : el)).map((x) => (typeof x === 'string' && !keyed.caseExact ? x.toLowerCase() : x)))].sort();
    return JSON.stringify(set(before)) === JSON.stringify(set(after));
  }
  if (def.type === 'complex' || def.multiValued) return JSON.stringify(before) === JSON.stringify(after);
  return sameScalar(def, before, after);
}

/**
 * The view after the operations, in order. `before` is not modified. A readOnly or immutable
 * attribute that ends up different is 400 mutability, naming what the attribute is.
 */
export function applyPatch<T extends Json>(schema: ResourceSchema, before: T, raw: unknown): Json {
  const ops = readOperations(raw);
  const view = structuredClone(before) as Json;
  ops.forEach((o, n) => {
    if (o.path === undefined || o.path.trim() === '') {
      if (o.op === 'remove') throw fail('noTarget', n, 'remove needs a path');
      if (!isObject(o.value)) throw fail('invalidValue', n, 'value: without a path, the value must be an object of attributes');
      for (const [path, value] of Object.entries(o.value)) {
        const t = target(schema, path, n);
        addOrReplace(view, t, o.op, value, n);
      }
      return;
    }
    const t = target(schema, o.path, n);
    if (o.op === 'remove') remove(view, t, o.value, n);
    else {
      if (o.value === undefined && t.def.type !== 'complex') throw fail('invalidValue', n, `value: ${o.op} needs a value`);
      addOrReplace(view, t, o.op, o.value, n);
    }
  });
  for (const def of schema.attributes) {
    if (def.mutability !== 'readOnly' && def.mutability !== 'immutable') continue;
    if (unchanged(def, before[def.name], view[def.name])) continue;
    throw scimBadRequest('mutability', `${def.name}: ${def.mutability === 'readOnly' ? 'read-only' : 'cannot be changed'}. ${def.description}`);
  }
  return view;
}
