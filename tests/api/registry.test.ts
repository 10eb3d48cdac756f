import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpoints } from '@/server/endpoints';
import { buildOpenApi } from '@/server/http/openapi';
import { OUTSIDE_REGISTRY } from '@/server/http/node-server';

const root = path.resolve(import.meta.dirname, '../..');

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return routeFiles(full);
    return name === 'route.ts' ? [full] : [];
  });
}

const files = routeFiles(path.join(root, 'app/api')).map((file) => {
  const rel = path.relative(path.join(root, 'app'), path.dirname(file)).split(path.sep);
  const urlPath = '/' + rel.join('/');
  const apiPath = '/' + rel.slice(1).map((s) => s.replace(/^\[(\w+)\]$/, '{$1}')).join('/');
  return { file, urlPath, apiPath, text: readFileSync(file, 'utf8') };
});

describe('route files and the registry', () => {
  it('every registry entry has a route file exporting exactly its methods', () => {
    const byPath = new Map<string, string[]>();
    for (const e of endpoints) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e.method]);
    for (const [p, methods] of byPath) {
      const f = files.find((x) => x.apiPath === p);
      expect(f, `no route file for ${p}: run npx tsx scripts/gen-routes.ts`).toBeDefined();
      const m = /export const \{ ([A-Z, ]+) \} = routeHandlers\('([^']+)'\)/.exec(f!.text);
      expect(m, `${f!.file} must re-export routeHandlers('${p}')`).not.toBeNull();
      expect(m![2]).toBe(p);
      expect(m![1].split(', ').sort()).toEqual([...methods].sort());
    }
  });

  it('every route file is served by the registry, or is one Next owns (tRPC, Inngest, auth)', () => {
    const registered = new Set(endpoints.map((e) => e.path));
    for (const f of files) {
      const ownRoute = OUTSIDE_REGISTRY.some((p) => f.urlPath === p || f.urlPath.startsWith(p + '/'));
      if (ownRoute) continue;
      expect(registered.has(f.apiPath), `${f.file} exports a handler missing from the registry`).toBe(true);
    }
  });
});

describe('OpenAPI', () => {
  it('documents every registry endpoint with its schemas and errors', () => {
    const doc = buildOpenApi(endpoints) as unknown as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const e of endpoints.filter((x) => !x.internal)) {
      const op = doc.paths[e.path]?.[e.method.toLowerCase()];
      expect(op, `${e.method} ${e.path}`).toBeDefined();
      expect(Object.keys(op.responses)).toContain(String(e.status ?? 200));
      if (e.auth !== 'none') expect(Object.keys(op.responses)).toContain('401');
    }
  });
});
