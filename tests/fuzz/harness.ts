import http from 'node:http';
import fc from 'fast-check';
import type { AnyEndpoint } from '@/server/http/endpoint';
import type { TestServer } from '../helpers/server';
import { answerProblem } from './answers';
import { bodySchemaOf, edgeInputs, HOSTILE_SEGMENTS, inputArbitrary, jsonSchemaOf, mutate, validBody, type BodyEncoding, type Input, type Json } from './inputs';
import { worldFor, type World } from './world';

/**
 * Property-based fuzzing of one registered endpoint over real HTTP: inputs derived from its
 * Zod schemas, then broken on purpose (wrong types, null, NUL, lone surrogates, huge
 * strings, deep nesting, unknown fields, invalid UTF-8, hostile path ids and query values,
 * identical requests at once). Every request is framed correctly whatever its method (a body
 * always goes with its Content-Length), so every answer is Steward's own and not Node's parser
 * refusing the framing. The properties (answers.ts): no answer is a 5xx, every status is one the
 * OpenAPI document lists for the operation, and every error body has the documented shape.
 */

export const SEED = Number(process.env.FUZZ_SEED ?? 1_200_014);
/** Runs per endpoint; FUZZ_RUNS raises it for a longer exploratory run. */
export const RUNS = Number(process.env.FUZZ_RUNS ?? 32);


export type Sent = { method: string; url: string; credential: string; body: string; status: number; answer: string; problem?: string | null };

function queryString(ep: AnyEndpoint, input: Input): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(input.query ?? {})) {
    if (v === undefined) continue;
    if (Array.isArray(v)) v.forEach((item) => qs.append(k, typeof item === 'string' ? item : JSON.stringify(item)));
    else qs.append(k, typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));
  }
  if (input.queryHostile) {
    const keys = Object.keys(jsonSchemaOf(ep.query)?.properties ?? {});
    const key = keys[input.queryHostile.at] ?? 'unknownFilter';
    qs.set(key, input.queryHostile.value);
    if (input.queryHostile.repeat) qs.append(key, input.queryHostile.value);
  }
  const parts = [qs.toString(), input.queryTail].filter(Boolean);
  return parts.length ? `?${parts.join('&')}` : '';
}

function encodeBody(body: Json | undefined, encoding: BodyEncoding): { bytes?: Uint8Array<ArrayBuffer> | string; contentType?: string; shown: string } {
  switch (encoding) {
    case 'none':
      return { shown: '(none)' };
    case 'invalid-utf8': {
      const json = Buffer.from(JSON.stringify(body ?? {}));
      const cut = Math.max(1, json.length - 2);
      const bytes = new Uint8Array(Buffer.concat([json.subarray(0, cut), Buffer.from([0xc3, 0x28, 0xff]), json.subarray(cut)]));
      return { bytes, contentType: 'application/json', shown: `bytes ${Buffer.from(bytes).toString('hex').slice(0, 400)}` };
    }
    case 'malformed-json':
      return { bytes: '{"a": [1, 2', contentType: 'application/json', shown: '{"a": [1, 2' };
    case 'form': {
      // The fields of the body as a form, plus malformed percent-encoding and NUL.
      const fields = body && typeof body === 'object' && !Array.isArray(body) ? Object.entries(body) : [];
      // A lone surrogate has no UTF-8 form to percent-encode; the JSON encodings carry those.
      const enc = (x: string) => encodeURIComponent((x as string & { toWellFormed(): string }).toWellFormed());
      const encoded = fields.map(([k, v]) => `${enc(k)}=${enc(typeof v === 'string' ? v : JSON.stringify(v))}`);
      const form = [...encoded, 'RelayState=%E0%A4%A', 'name=%00'].join('&');
      return { bytes: form, contentType: 'application/x-www-form-urlencoded', shown: form.length > 600 ? `${form.slice(0, 600)}…` : form };
    }
    case 'json': {
      if (body === undefined) return { shown: '(none)' };
      const text = JSON.stringify(body);
      return { bytes: text, contentType: 'application/json', shown: text.length > 600 ? `${text.slice(0, 600)}… (${text.length} chars)` : text };
    }
  }
}

/**
 * node:http rather than fetch: it sends the Host header as given and the URL byte for byte. A body
 * is always sent with its Content-Length: node:http frames a DELETE (or GET) body with neither
 * Content-Length nor chunked encoding, and the server's parser then refuses the bytes that
 * follow as a malformed request (400 from Node, never Steward's answer).
 */
export function request(url: string, method: string, headers: Record<string, string>, body?: Uint8Array | string): Promise<{ status: number; text: string; contentType: string | null }> {
  const framed = body === undefined ? headers : { ...headers, 'Content-Length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: framed }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), contentType: res.headers['content-type'] ?? null }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function send(s: TestServer, ep: AnyEndpoint, world: World, input: Input): Promise<Sent[]> {
  let i = 0;
  const path = ep.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const hostile = input.pathIds[i++];
    return hostile === null || hostile === undefined ? encodeURIComponent(world.params[name] ?? 'x') : HOSTILE_SEGMENTS[hostile];
  });
  const url = s.baseUrl + path + queryString(ep, input);
  const credential = world.credentials[input.credential];
  const body = mutate(input.body, input.mutation, jsonSchemaOf(bodySchemaOf(ep)));
  const { bytes, contentType, shown } = encodeBody(body, input.encoding);
  const headers: Record<string, string> = { ...credential.headers };
  if (contentType && !headers['Content-Type']) headers['Content-Type'] = contentType;
  const once = async (): Promise<Sent> => {
    const sent = { method: ep.method, url: url.length > 500 ? `${url.slice(0, 500)}… (${url.length} chars)` : url, credential: credential.label, body: shown };
    try {
      const res = await request(url, ep.method, headers, bytes);
      return { ...sent, status: res.status, answer: res.text.slice(0, 500), problem: answerProblem(ep, res) };
    } catch (e) {
      return { ...sent, status: 599, answer: `request failed: ${String((e as Error).cause ?? e)}` };
    }
  };
  return input.twice ? Promise.all([once(), once()]) : [await once()];
}
/** Sends the same request `n` times at once. */
export async function concurrently(s: TestServer, ep: AnyEndpoint, world: World, body: Json, n = 3): Promise<Sent[]> {
  const path = ep.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(world.params[name] ?? 'x'));
  const credential = world.credentials[0];
  const text = JSON.stringify(body);
  const headers = { 'Content-Type': 'application/json', ...credential.headers };
  return Promise.all(
    Array.from({ length: n }, async () => {
      const res = await request(s.baseUrl + path, ep.method, headers, text).catch((e) => e as Error);
      const answer = res instanceof Error ? `request failed: ${String(res.cause ?? res)}` : res.text.slice(0, 500);
      return {
        method: ep.method,
        url: s.baseUrl + path,
        credential: credential.label,
        body: text.slice(0, 600),
        status: res instanceof Error ? 599 : res.status,
        answer,
        problem: res instanceof Error ? null : answerProblem(ep, res),
      };
    }),
  );
}
/**
 * Fuzzes one endpoint and returns every 5xx seen, one example per distinct answer. The
 * server is stateful, so failures are collected rather than shrunk.
 */
export async function fuzzEndpoint(s: TestServer, ep: AnyEndpoint, runs = RUNS): Promise<Sent[]> {
  const world = await worldFor(s, ep);
  const failures = new Map<string, Sent>();
  const statuses: Record<number, number> = {};
  const record = (all: Sent[]) => {
    for (const r of all) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    for (const r of all) {
      const problem = r.status >= 500 ? `${r.status} ${r.answer.slice(0, 120)}` : r.problem;
      if (problem && !failures.has(problem)) failures.set(problem, { ...r, problem });
    }
  };
  const seed = SEED + [...`${ep.method} ${ep.path}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 0);
  await fc.assert(
    fc.asyncProperty(inputArbitrary(ep, world), async (input) => {
      record(await send(s, ep, world, input));
    }),
    { seed, numRuns: runs },
  );
  for (const input of edgeInputs(ep, world)) record(await send(s, ep, world, input));
  if (ep.method === 'POST' || ep.method === 'PUT') {
    const body = validBody(ep, world, seed);
    if (body !== null) record(await concurrently(s, ep, world, body));
  }
  if (process.env.FUZZ_STATS) console.log(`${ep.method} ${ep.path}`, JSON.stringify(statuses));
  return [...failures.values()];
}

export const describeFailures = (ep: AnyEndpoint, failures: Sent[]) =>
  failures.map((f) => `${ep.method} ${ep.path} [${f.credential}] ${f.url}\n  body: ${f.body}\n  → ${f.status} ${f.answer}${f.problem ? `\n  problem: ${f.problem}` : ''}`).join('\n');
