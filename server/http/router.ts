import type { AnyEndpoint } from './endpoint';

type Route = { path: string; regex: RegExp; paramNames: string[]; methods: Map<string, AnyEndpoint>; weight: number };
export type RouteMatch = { route: Route; params: Record<string, string> };

/** The first segment of a path (`/tasks/1/process` → `tasks`): routes are grouped by it. */
const firstSegment = (path: string) => {
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
};

/**
 * Matches `/users/{userId}`-style templates; literal segments win over parameters. Routes are
 * grouped by their first segment (every template starts with a literal one), so a request tries
 * the few routes of its own group rather than every route's expression in turn: with 300 routes
 * the scan was a visible part of the kernel's time for routes late in the order.
 */
export class Router {
  private routes: Route[] = [];
  private groups = new Map<string, Route[]>();

  constructor(endpoints: AnyEndpoint[]) {
    const byPath = new Map<string, Route>();
    for (const ep of endpoints) {
      let route = byPath.get(ep.path);
      if (!route) {
        const paramNames: string[] = [];
        const segments = ep.path.split('/').filter(Boolean);
        const pattern = segments
          .map((seg) => {
            const m = /^\{(\w+)\}$/.exec(seg);
            if (m) {
              paramNames.push(m[1]);
              return '/([^/]+)';
            }
            return '/' + seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          })
          .join('');
        // Weight: a parameter in an earlier segment loses to a literal there.
        const weight = segments.reduce((w, seg, i) => w + (seg.startsWith('{') ? 1 / (i + 1) : 0), 0);
        route = { path: ep.path, regex: new RegExp(`^${pattern}/?$`), paramNames, methods: new Map(), weight };
        byPath.set(ep.path, route);
      }
      if (route.methods.has(ep.method)) throw new Error(`Duplicate endpoint ${ep.method} ${ep.path}`);
      route.methods.set(ep.method, ep);
    }
    this.routes = [...byPath.values()].sort((a, b) => a.weight - b.weight);
    for (const route of this.routes) {
      const key = route.path.startsWith('/{') ? '' : firstSegment(route.path);
      const group = this.groups.get(key) ?? [];
      group.push(route);
      this.groups.set(key, group);
    }
    // A template whose first segment is a parameter (none today) could match any path: it joins every group.
    const anywhere = this.groups.get('') ?? [];
    if (anywhere.length) for (const [key, group] of this.groups) if (key) this.groups.set(key, [...group, ...anywhere].sort((a, b) => a.weight - b.weight));
  }

  match(pathname: string): RouteMatch | null {
    const group = this.groups.get(firstSegment(pathname)) ?? this.groups.get('') ?? [];
    for (const route of group) {
      const m = route.regex.exec(pathname);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.paramNames.forEach((name, i) => {
        params[name] = safeDecode(m[i + 1]);
      });
      return { route, params };
    }
    return null;
  }
}

function safeDecode(s: string) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
