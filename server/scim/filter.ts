import { parse, type Filter } from 'scim2-parse-filter';
import { scimBadRequest } from './errors';
import { findAttribute, stripSchemaUrn, type Attribute, type ResourceSchema } from './schema';

/**
 * RFC 7644 §3.4.2.2 filters, compiled against the resource's schema (schema.ts): strings
 * compare case-insensitively unless the attribute is `caseExact` (userName, emails.value and
 * displayName are not; id, externalId and members.value are), dateTime values as instants. An
 * attribute the schema does not define is `invalidFilter`, so a client matching on an attribute
 * Steward does not keep hears it rather than finding nobody and creating a duplicate.
 */
export type Test = (resource: unknown) => boolean;

type Compare = Extract<Filter, { compValue: unknown }>;

const lower = (s: string) => s.toLowerCase();
const invalid = (detail: string) => scimBadRequest('invalidFilter', detail);

/** The attribute a path names among `attrs`, and the sub-attribute after its dot. */
function resolve(attrs: readonly Attribute[], path: string, resource: ResourceSchema | null): { top: Attribute; sub?: Attribute } {
  const bare = resource ? stripSchemaUrn(resource, path) : path;
  if (bare === null) throw invalid(`filter: ${path} is in a schema this server does not serve`);
  const [name, subName, ...more] = bare.split('.');
  const top = findAttribute(attrs, name);
  if (!top || more.length) throw invalid(`filter: ${path} is not an attribute this server keeps (see /Schemas)`);
  if (subName === undefined) return { top };
  const sub = findAttribute(top.subAttributes, subName);
  if (!sub) throw invalid(`filter: ${path} is not an attribute this server keeps (see /Schemas)`);
  return { top, sub };
}

/** Every value at a resolved path, multi-valued attributes flattened. */
function valuesAt(node: unknown, top: Attribute, sub?: Attribute): unknown[] {
  if (!node || typeof node !== 'object') return [];
  const raw = (node as Record<string, unknown>)[top.name];
  const first = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  if (!sub) return first;
  return first.flatMap((v) => {
    const x = v && typeof v === 'object' ? (v as Record<string, unknown>)[sub.name] : undefined;
    return Array.isArray(x) ? x : x === undefined || x === null ? [] : [x];
  });
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);

/** One comparison of a leaf attribute's value with the filter's value. */
function comparator(leaf: Attribute, f: Compare, path: string): (actual: unknown) => boolean {
  const expected = f.compValue;
  const op = f.op;
  if (leaf.type === 'complex') throw invalid(`filter: ${path} is complex; compare one of its sub-attributes`);
  if (leaf.type === 'boolean') {
    const want = typeof expected === 'string' && /^(true|false)$/i.test(expected) ? lower(expected) === 'true' : expected;
    if ((op !== 'eq' && op !== 'ne') || typeof want !== 'boolean') throw invalid(`filter: ${path} is a boolean: only eq or ne true/false`);
    return (actual) => actual === want;
  }
  if (leaf.type === 'dateTime') {
    const at = typeof expected === 'string' ? Date.parse(expected) : NaN;
    if (Number.isNaN(at) || !['eq', 'ne', 'gt', 'ge', 'lt', 'le'].includes(op)) throw invalid(`filter: ${path} is a dateTime: compare it with a date and eq, ne, gt, ge, lt or le`);
    return (actual) => {
      const t = typeof actual === 'string' ? Date.parse(actual) : NaN;
      if (Number.isNaN(t)) return false;
      return op === 'eq' || op === 'ne' ? t === at : op === 'gt' ? t > at : op === 'ge' ? t >= at : op === 'lt' ? t < at : t <= at;
    };
  }
  if (typeof expected !== 'string') throw invalid(`filter: ${path} is a string: compare it with a quoted value`);
  const norm = (s: string) => (leaf.caseExact ? s : lower(s));
  const want = norm(expected);
  return (actual) => {
    if (typeof actual !== 'string') return false;
    const v = norm(actual);
    switch (op) {
      case 'eq':
      case 'ne':
        return v === want;
      case 'co':
        return v.includes(want);
      case 'sw':
        return v.startsWith(want);
      case 'ew':
        return v.endsWith(want);
      case 'gt':
        return v > want;
      case 'ge':
        return v >= want;
      case 'lt':
        return v < want;
      case 'le':
        return v <= want;
    }
  };
}

function compile(f: Filter, attrs: readonly Attribute[], resource: ResourceSchema | null): Test {
  switch (f.op) {
    case 'and': {
      const parts = f.filters.map((x) => compile(x, attrs, resource));
      return (r) => parts.every((t) => t(r));
    }
    case 'or': {
      const parts = f.filters.map((x) => compile(x, attrs, resource));
      return (r) => parts.some((t) => t(r));
    }
    case 'not': {
      const inner = compile(f.filter, attrs, resource);
      return (r) => !inner(r);
    }
    case '[]': {
      const { top, sub } = resolve(attrs, f.attrPath, resource);
      if (sub || top.type !== 'complex') throw invalid(`filter: ${f.attrPath}[...] needs a complex attribute`);
      const inner = compile(f.valFilter, top.subAttributes ?? [], null);
      return (r) => valuesAt(r, top).some(inner);
    }
    case 'pr': {
      const { top, sub } = resolve(attrs, f.attrPath, resource);
      return (r) => valuesAt(r, top, sub).some(present);
    }
    default: {
      const { top, sub } = resolve(attrs, f.attrPath, resource);
      // A complex attribute compared as a whole means its `value` (`emails eq "…"`).
      const leafSub = sub ?? (top.type === 'complex' ? findAttribute(top.subAttributes, 'value') : undefined);
      const matches = comparator(leafSub ?? top, f, f.attrPath);
      // `ne` holds when no value equals (an absent attribute included).
      if (f.op === 'ne') return (r) => !valuesAt(r, top, leafSub).some(matches);
      return (r) => valuesAt(r, top, leafSub).some(matches);
    }
  }
}

function parsed(text: string, what: string, fail: (d: string) => Error): Filter {
  try {
    return parse(text);
  } catch {
    throw fail(`${what}: cannot parse ${text}`);
  }
}

/** A list request's `filter` as a test over presented resources; 400 invalidFilter when it cannot be one. */
export function compileFilter(resource: ResourceSchema, text: string): Test {
  return compile(parsed(text, 'filter', invalid), resource.attributes, resource);
}

/** The filter inside a PATCH path (`emails[type eq "work"]`), over the sub-attributes of one attribute. */
export function compileValueFilter(attribute: Attribute, text: string, fail: (d: string) => Error): { test: Test; ast: Filter } {
  const ast = parsed(text, 'path', fail);
  try {
    return { test: compile(ast, attribute.subAttributes ?? [], null), ast };
  } catch (e) {
    throw fail(`path: ${(e as Error).message.replace(/^filter: /, '')}`);
  }
}
