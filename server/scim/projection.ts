import { findAttribute, stripSchemaUrn, type Attribute, type ResourceSchema } from './schema';

/**
 * RFC 7644 §3.4.2.5 / §3.9: `attributes` returns only the named attributes (with those whose
 * `returned` is `always`: id, schemas), `excludedAttributes` everything but the named ones
 * (never an `always` one). Both take `name`, `name.sub` or a URN-prefixed path; a name the
 * schema does not define selects nothing.
 */
export type Selection = { attributes: string[]; excludedAttributes: string[] };

/** Top-level attribute name → every sub-attribute (true) or the named ones. */
type Picks = Map<string, true | Set<string>>;

function picks(resource: ResourceSchema, paths: string[]): Picks {
  const out: Picks = new Map();
  for (const raw of paths) {
    const bare = stripSchemaUrn(resource, raw.trim());
    if (!bare) continue;
    const [name, subName] = bare.split('.');
    const top = findAttribute(resource.attributes, name);
    if (!top) continue;
    if (subName === undefined) {
      out.set(top.name, true);
      continue;
    }
    const sub = findAttribute(top.subAttributes, subName);
    const had = out.get(top.name);
    if (!sub || had === true) continue;
    out.set(top.name, (had ?? new Set<string>()).add(sub.name));
  }
  return out;
}

/** Keeps (or drops) the named sub-attributes of a complex value, element by element when multi-valued. */
function subset(value: unknown, subs: Set<string>, keep: boolean): unknown {
  const one = (v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => subs.has(k) === keep)) : v;
  return Array.isArray(value) ? value.map(one) : one(value);
}

const always = (a: Attribute | undefined) => a?.returned === 'always';

export function project<T extends Record<string, unknown>>(resource: ResourceSchema, shown: T, sel: Selection): Partial<T> {
  if (!sel.attributes.length && !sel.excludedAttributes.length) return shown;
  const wanted = sel.attributes.length ? picks(resource, sel.attributes) : null;
  const dropped = picks(resource, sel.excludedAttributes);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(shown)) {
    if (value === undefined) continue;
    const def = findAttribute(resource.attributes, key);
    if (always(def)) {
      out[key] = value;
      continue;
    }
    let v: unknown = value;
    if (wanted) {
      const w = wanted.get(key);
      if (!w) continue;
      if (w !== true) v = subset(v, w, true);
    }
    const d = dropped.get(key);
    if (d === true) continue;
    if (d) v = subset(v, d, false);
    out[key] = v;
  }
  return out as Partial<T>;
}
