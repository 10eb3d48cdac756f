import fc from 'fast-check';
import { z } from 'zod';
import type { AnyEndpoint } from '@/server/http/endpoint';
import { ScimUserBody } from '@/server/scim/contracts';
import type { World } from './world';

/*
 * What the fuzz sends: inputs derived from an endpoint's Zod schemas (through JSON Schema), mostly
 * valid so the handlers run, then broken on purpose, and the hostile material they are broken with.
 */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonSchema = Record<string, any>;

const PatchOp = z.object({
  schemas: z.array(z.literal('urn:ietf:params:scim:api:messages:2.0:PatchOp')),
  Operations: z.array(
    z.object({
      op: z.enum(['add', 'remove', 'replace', 'Add', 'Replace']),
      path: z.enum(['active', 'members', 'displayName', 'userName', 'name.givenName', 'externalId', 'members[value eq "x"]']).optional(),
      value: z.unknown(),
    }),
  ),
});
const ScimGroup = z.object({ displayName: z.string().min(1), externalId: z.string().optional(), members: z.array(z.object({ value: z.string() })).optional() });

/** Endpoints that take `z.unknown()` and validate inside: what their bodies look like. */
const BODY_HINTS: Record<string, z.ZodType> = {
  'POST /scim/v2/Users': ScimUserBody,
  'PUT /scim/v2/Users/{id}': ScimUserBody,
  'PATCH /scim/v2/Users/{id}': PatchOp,
  'POST /scim/v2/Groups': ScimGroup,
  'PUT /scim/v2/Groups/{id}': ScimGroup,
  'PATCH /scim/v2/Groups/{id}': PatchOp,
};
/** Endpoints that read an HTML form (the SAML bindings) rather than JSON. */
const SamlForm = z.object({ SAMLResponse: z.string(), SAMLRequest: z.string().optional(), RelayState: z.string().optional() });
const FORM_BODIES = new Set(['POST /sso/saml/acs', 'POST /sso/saml/slo']);
BODY_HINTS['POST /sso/saml/acs'] = SamlForm;
BODY_HINTS['POST /sso/saml/slo'] = SamlForm;
const takesForm = (ep: AnyEndpoint) => FORM_BODIES.has(`${ep.method} ${ep.path}`);

export const bodySchemaOf = (ep: AnyEndpoint): z.ZodType | undefined => BODY_HINTS[`${ep.method} ${ep.path}`] ?? ep.body;

export const jsonSchemaOf = (schema: z.ZodType | undefined): JsonSchema | null => {
  if (!schema) return null;
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    return {};
  }
};

const ID_LIKE = /(^id$|Id$|^(team|organization|user|owner|assistant|defaultTeam|defaultAssistant)$)/;

function stringFor(name: string, s: JsonSchema, world: World): fc.Arbitrary<string> {
  const lower = name.toLowerCase();
  const realEmail = fc.constantFrom(world.email);
  const domains = ['example.com', 'example.org', ...(world.domain ? [world.domain, world.domain] : [])];
  const email = fc.tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/), fc.constantFrom(...domains)).map(([u, d]) => `${u}@${d}`);
  if (s.format === 'email' || lower.includes('email') || lower === 'username' || lower === 'address') return fc.oneof(email, realEmail);
  if (s.format === 'uri' || s.format === 'url' || lower.includes('url') || lower === 'avatar' || lower === 'website') {
    return fc.constantFrom('https://example.com/a.png', 'http://x.example/', 'not a url');
  }
  if (s.format === 'date-time' || lower.endsWith('at') || lower.endsWith('date')) {
    return fc.constantFrom('2024-05-01T10:00:00Z', '2030-01-01T00:00:00.000Z', '1970-01-01T00:00:00Z', '2024-02-30', 'yesterday');
  }
  if (lower === 'timezone') return fc.constantFrom('Europe/Paris', 'UTC', 'America/New_York', 'Mars/Olympus');
  if (lower === 'domain') return fc.stringMatching(/^[a-z]{1,10}\.(example|test)$/);
  if (lower === 'country') return fc.constantFrom('FR', 'US', 'ZZ');
  if (lower === 'locale') return fc.constantFrom('en', 'fr-FR', 'x');
  if (name === 'SAMLResponse' || name === 'SAMLRequest') {
    const xml = fc.string({ maxLength: 60 }).map((t) => `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${t}</samlp:Response>`);
    return fc.oneof(xml.map((x) => Buffer.from(x).toString('base64')), fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b).toString('base64')), fc.string());
  }
  if (ID_LIKE.test(name)) return fc.oneof(fc.constantFrom(...world.ids), fc.constantFrom('ffffffffffffffffffffffff', 'x'));
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? 200));
    } catch {
      // a pattern fast-check cannot invert: plain strings below
    }
  }
  const min = Math.min(s.minLength ?? 0, 40);
  const max = Math.max(min, Math.min(s.maxLength ?? 30, 30));
  return fc.string({ minLength: min, maxLength: max });
}

export function arbitraryFor(schema: JsonSchema, world: World, name = '', root: JsonSchema = schema, depth = 0): fc.Arbitrary<Json> {
  if (depth > 6) return fc.constant(null);
  if (schema.$ref) {
    const target = String(schema.$ref).replace(/^#\/(\$defs|definitions)\//, '');
    const def = (root.$defs ?? root.definitions ?? {})[target];
    return def ? arbitraryFor(def, world, name, root, depth + 1) : fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Json[]));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length) return fc.oneof(...alternatives.map((a: JsonSchema) => arbitraryFor(a, world, name, root, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length) return arbitraryFor(Object.assign({}, ...schema.allOf), world, name, root, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (type.length > 1) return fc.oneof(...type.map((t: string) => arbitraryFor({ ...schema, type: t }, world, name, root, depth + 1)));
  switch (type[0]) {
    case 'string':
      return stringFor(name, schema, world);
    case 'integer':
    case 'number': {
      const lo = Math.max(schema.minimum ?? -1000, -1_000_000);
      const hi = Math.min(schema.maximum ?? 1000, 1_000_000);
      const n = type[0] === 'integer' ? fc.integer({ min: Math.ceil(lo), max: Math.floor(Math.max(lo, hi)) }) : fc.double({ min: lo, max: Math.max(lo, hi), noNaN: true });
      return n as fc.Arbitrary<Json>;
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items ? arbitraryFor(schema.items, world, name, root, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const min = Math.min(schema.minItems ?? 0, 3);
      return fc.array(items as fc.Arbitrary<Json>, { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'object': {
      const props: Record<string, JsonSchema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const shape: Record<string, fc.Arbitrary<Json>> = {};
      for (const [k, v] of Object.entries(props)) shape[k] = arbitraryFor(v, world, k, root, depth + 1);
      if (!Object.keys(shape).length) {
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>, { maxKeys: 3 });
      }
      return fc.record(shape, { requiredKeys: required.filter((r) => r in shape) }) as fc.Arbitrary<Json>;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  }
}

// ---------------------------------------------------------------------------------------
// Hostile material.

const nest = (n: number, leaf: Json): Json => (n === 0 ? leaf : { a: nest(n - 1, leaf) });
const nestArray = (n: number): Json => (n === 0 ? 'deep' : [nestArray(n - 1)]);

const HOSTILE_VALUES: Json[] = [
  null, 0, -1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, -1e308, true, false,
  '', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udc00y', 'x'.repeat(10_000), '💥'.repeat(2_000), 'é'.repeat(5_000),
  [], {}, [null], ['\u0000'], { '\u0000': 1 }, { 'a\ud800': 1 }, nest(50, 'deep'), nestArray(50), nest(50, '\u0000'),
  '2024-13-45T99:99:99Z', '0001-01-01T00:00:00Z', '99999-01-01T00:00:00Z', '../../etc/passwd', '<script>alert(1)</script>',
  "' OR 1=1 --", '%00', '\\', '%', '_', 'ffffffffffffffffffffffff', 'NaN', '-0', 'null', 'true',
];

export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE_VALUES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.integer() },
);

/** Path segments as they go on the wire (already percent-encoded or deliberately not). */
export const HOSTILE_SEGMENTS = [
  '%00', 'a%00b', '%00%00', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%E0%A4%A', '%ED%A0%80', '%FF%FE', '%C0%AF', '%', '%25',
  'x'.repeat(3_000), encodeURIComponent('用户-ü-💥'), '%20', '-1', '0', '99999999999999999999999999', 'null', '%7B%7D',
  encodeURIComponent("' OR 1=1 --"), 'ffffffffffffffffffffffff', '%0D%0ASet-Cookie:%20x=1',
];

export const HOSTILE_QUERY_VALUES = [
  '\u0000', 'a\u0000', '\ud800', '💥', '-1', '0', '1e309', 'NaN', '', ' ', '%', '_', '[]', '{"a":1}', 'true',
  '0x10', '99999999999999999999', 'x'.repeat(3_000), 'ffffffffffffffffffffffff', "' OR 1=1 --",
];
/** Appended verbatim: malformed percent-encoding that URLSearchParams would never produce. */
export const RAW_QUERY_TAILS = ['', '', '', 'x=%00', '%00=%00', 'page=%E0%A4%A', 'perPage=%FF', 'userId=%00&userId=%00', 'a=%', 'q=%ED%A0%80'];

// ---------------------------------------------------------------------------------------
// One request.

export type Mutation =
  | { kind: 'none' }
  | { kind: 'set'; at: number; value: Json }
  | { kind: 'unknown'; extra: Record<string, Json> }
  | { kind: 'replace'; value: Json };

export type BodyEncoding = 'json' | 'invalid-utf8' | 'malformed-json' | 'form' | 'none';

export type Input = {
  credential: number;
  pathIds: (number | null)[];
  query: Record<string, Json> | null;
  queryHostile: { at: number; value: string; repeat: boolean } | null;
  queryTail: string;
  body: Json | undefined;
  mutation: Mutation;
  encoding: BodyEncoding;
  twice: boolean;
};

function allPaths(v: Json, prefix: string[] = [], out: string[][] = [], depth = 0): string[][] {
  if (depth > 4 || v === null || typeof v !== 'object') return out;
  for (const [k, child] of Object.entries(v)) {
    const p = [...prefix, k];
    out.push(p);
    allPaths(child as Json, p, out, depth + 1);
  }
  return out;
}

function setAt(v: Json, path: string[], value: Json): Json {
  if (!path.length) return value;
  const copy: any = Array.isArray(v) ? [...v] : v && typeof v === 'object' ? { ...v } : {};
  copy[path[0]] = setAt(copy[path[0]] ?? {}, path.slice(1), value);
  return copy;
}

export function mutate(body: Json | undefined, mutation: Mutation, schema: JsonSchema | null): Json | undefined {
  switch (mutation.kind) {
    case 'none':
      return body;
    case 'replace':
      return mutation.value;
    case 'unknown':
      return body && typeof body === 'object' && !Array.isArray(body) ? { ...mutation.extra, ...body, ...mutation.extra } : mutation.extra;
    case 'set': {
      const declared = Object.keys(schema?.properties ?? {}).map((k) => [k]);
      const paths = [...allPaths(body ?? {}), ...declared];
      if (!paths.length) return setAt(body ?? {}, ['name'], mutation.value);
      return setAt(body ?? {}, paths[mutation.at % paths.length], mutation.value);
    }
  }
}

export const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function inputArbitrary(ep: AnyEndpoint, world: World): fc.Arbitrary<Input> {
  const bodySchema = jsonSchemaOf(bodySchemaOf(ep));
  const querySchema = jsonSchemaOf(ep.query);
  const paramNames = [...ep.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const hasBody = WITH_BODY.has(ep.method);
  const replaceBody: fc.Arbitrary<Json> = fc.oneof(
    fc.constantFrom<Json>({}, [], null, 'text', 42, true, nest(50, 1), nestArray(50), { unknownField: 1, other: 'x' }, { '': '\u0000' }),
    fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  );
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: hostileValue }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('unknown' as const), extra: fc.dictionary(fc.string({ maxLength: 10 }), hostileValue, { minKeys: 1, maxKeys: 3 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace' as const), value: replaceBody }) },
  );
  const queryKeys = Object.keys(querySchema?.properties ?? {});
  return fc.record({
    credential: fc.oneof(...world.credentials.map((c, i) => ({ weight: c.odd ? 1 : 6, arbitrary: fc.constant(i) }))),
    // Mostly the real resource, so the handler runs; sometimes a hostile segment instead.
    pathIds: fc.array(
      fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat({ max: HOSTILE_SEGMENTS.length - 1 }) }),
      { minLength: paramNames.length, maxLength: paramNames.length },
    ),
    query: querySchema ? fc.option(arbitraryFor(querySchema, world) as fc.Arbitrary<Record<string, Json>>, { freq: 5, nil: null }) : fc.constant(null),
    queryHostile: fc.option(
      fc.record({ at: fc.nat({ max: queryKeys.length }), value: fc.constantFrom(...HOSTILE_QUERY_VALUES), repeat: fc.boolean() }),
      { freq: 2, nil: null },
    ),
    queryTail: fc.constantFrom(...RAW_QUERY_TAILS),
    body: hasBody && bodySchema ? (arbitraryFor(bodySchema, world) as fc.Arbitrary<Json | undefined>) : fc.constant(undefined),
    mutation: hasBody ? mutation : fc.constant<Mutation>({ kind: 'none' }),
    encoding: !hasBody
      ? fc.constant<BodyEncoding>('none')
      : takesForm(ep)
        ? fc.constantFrom<BodyEncoding>('form', 'form', 'form', 'form', 'form', 'json', 'invalid-utf8', 'none')
        : fc.constantFrom<BodyEncoding>('json', 'json', 'json', 'json', 'json', 'json', 'invalid-utf8', 'malformed-json', 'form', 'none'),
    twice: ep.method === 'POST' || ep.method === 'PUT' ? fc.boolean() : fc.constant(false),
  });
}

/** A body the endpoint's own schema accepts, for the duplicate-create race (null when none is found). */
export function validBody(ep: AnyEndpoint, world: World, seed: number): Json | null {
  const zod = bodySchemaOf(ep);
  const schema = jsonSchemaOf(zod);
  if (!schema || !zod) return null;
  const samples = fc.sample(arbitraryFor(schema, world), { numRuns: 300, seed });
  const accepted = (b: Json) => {
    try {
      return zod.safeParse(b).success;
    } catch {
      return false; // a refinement that throws: the server answers 400 for this one
    }
  };
  return samples.find(accepted) ?? null;
}
/**
 * The classes the issue found, tried on every endpoint whatever the random draws give: an
 * update with nothing in it, only unknown fields, NUL as each path id and in each declared
 * query value, invalid UTF-8, and NUL, a lone surrogate or `[null]` in each declared field.
 */
export function edgeInputs(ep: AnyEndpoint, world: World): Input[] {
  const base: Input = {
    credential: 0, pathIds: [...ep.path.matchAll(/\{(\w+)\}/g)].map(() => null), query: null, queryHostile: null,
    queryTail: '', body: undefined, mutation: { kind: 'none' }, encoding: WITH_BODY.has(ep.method) ? 'json' : 'none', twice: false,
  };
  const out: Input[] = [];
  const alternate = world.credentials.findIndex((c, i) => i > 0 && !c.odd);
  for (const credential of alternate > 0 ? [0, alternate] : [0]) {
    if (WITH_BODY.has(ep.method)) {
      out.push({ ...base, credential, body: {} });
      out.push({ ...base, credential, body: { zzUnknownField: 1, another: 'x' } });
    }
    base.pathIds.forEach((_, i) => out.push({ ...base, credential, pathIds: base.pathIds.map((_, j) => (i === j ? 0 : null)) }));
    const queryKeys = Object.keys(jsonSchemaOf(ep.query)?.properties ?? {});
    queryKeys.forEach((_, at) => out.push({ ...base, credential, queryHostile: { at, value: '\u0000', repeat: false } }));
  }
  if (WITH_BODY.has(ep.method)) {
    out.push({ ...base, encoding: 'invalid-utf8', body: {} });
    for (const key of Object.keys(jsonSchemaOf(bodySchemaOf(ep))?.properties ?? {})) {
      for (const value of ['a\u0000b', 'x\ud800', [null]] as Json[]) out.push({ ...base, body: { [key]: value } });
    }
  }
  return out;
}
