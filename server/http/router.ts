import type { AnyEndpoint } from './endpoint';

type Route = { path: string; regex: RegExp; paramNames: string[]; methods: Map<string, AnyEndpoint>; weight: number };
export type RouteMatch = { route: Route; params: Record<string, string> };

/** Matches `/users/{userId}`-style templates; literal segments win over parameters. */
export class Router {
  private routes: Route[] = [];

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
  }

  match(pathname: string): RouteMatch | null {
    for (const route of this.routes) {
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
