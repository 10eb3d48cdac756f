import type { AnyEndpoint } from '@/server/http/endpoint';
import { call } from '../helpers/client';
import type { TestServer } from '../helpers/server';
import type { Credential, Made } from './fixtures';

/*
 * What a refused write must leave untouched: every GET of the registry that reads the resource or
 * a list above it (the path's prefixes that are GET endpoints the fixture named every parameter
 * of), read back by the owner before and after, byte for byte. A handler that writes before it
 * checks ownership and then answers 404 passes every status check; this one it does not.
 */

/** The read-back URLs for a path: `/tasks/{taskId}/process` → `/tasks/{taskId}` and `/tasks`. */
export function readBackPaths(path: string, gets: AnyEndpoint[], made: Made): string[] {
  const segments = path.split('/');
  const out: string[] = [];
  for (let n = segments.length; n > 1; n--) {
    const prefix = segments.slice(0, n).join('/');
    if (!gets.some((g) => g.path === prefix && !g.raw)) continue;
    const names = [...prefix.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    if (names.some((name) => !made[name])) continue;
    out.push(prefix.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(made[name])));
  }
  return out;
}

/**
 * A read's bytes, less what reading itself changes: `lastUsedAt` of keys moves with every request
 * the reader makes (its own key is in GET /api-keys). Nothing else is set aside.
 */
const readerNoise = (text: string) => text.replace(/"lastUsedAt":(null|"[^"]*")/g, '"lastUsedAt":…');

export async function snapshot(s: TestServer, urls: string[], who: Credential): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const url of urls) {
    const res = await call(s, url, { ...who });
    out[url] = `${res.status} ${readerNoise(typeof res.body === 'string' ? res.body : JSON.stringify(res.body))}`;
  }
  return out;
}
