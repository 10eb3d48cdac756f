import type { AnyEndpoint } from './endpoint';

/**
 * Stable, readable OpenAPI operationIds derived from path and method, so code generators name
 * methods after the resource and the verb (`tasks.list`, `tasks.approve`) instead of inventing
 * them, and an endpoint added by any area gets a good name without declaring one.
 *
 * The name is the path's fixed segments (path parameters and version segments like `v2` left
 * out), camelCased and joined with dots, then a verb:
 * - path ending in a parameter (an item): GET `get`, PATCH `update`, PUT `update` (`replace`
 *   when the item also takes PATCH), DELETE `delete`, POST `create`;
 * - path ending in a fixed segment that names a resource (it is read with GET, answers several
 *   methods, or has paths below it): GET `list` when it is a collection (items `/{id}` below
 *   it, or it takes POST and its name is plural), else `get`; POST `create`, or `post` beside
 *   the GET of a resource that is no collection (a protocol binding such as SAML's SLO);
 *   PUT/PATCH/DELETE as for an item;
 * - any other fixed ending is an action and needs no verb: POST /tasks/{taskId}/approve is
 *   `tasks.approve`, PUT .../matrix/reset is `users.preferences.supervision.matrix.reset`.
 * An endpoint's own `operationId` wins. Two endpoints the rule would name alike are reported
 * (`collisions`, a test keeps it empty) and told apart by their method so the document stays valid.
 */
export type OperationIds = { ids: Map<AnyEndpoint, string>; collisions: string[] };

const isParam = (segment: string) => /^\{.+\}$/.test(segment);
const isVersion = (segment: string) => /^v\d+$/.test(segment);

function camel(segment: string): string {
  const parts = segment.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return parts.map((p, i) => (i === 0 ? p[0].toLowerCase() + p.slice(1) : p[0].toUpperCase() + p.slice(1))).join('');
}

export function nameOf(path: string): string {
  return path
    .split('/')
    .filter((s) => s && !isParam(s) && !isVersion(s))
    .map(camel)
    .join('.');
}

export function operationIds(endpoints: AnyEndpoint[]): OperationIds {
  const methodsAt = new Map<string, Set<string>>();
  for (const ep of endpoints) {
    if (!methodsAt.has(ep.path)) methodsAt.set(ep.path, new Set());
    methodsAt.get(ep.path)!.add(ep.method);
  }
  const paths = [...methodsAt.keys()];
  const hasItemsBelow = (path: string) => paths.some((p) => p.startsWith(`${path}/{`));
  const hasPathsBelow = (path: string) => paths.some((p) => p.startsWith(`${path}/`));

  const verbFor = (ep: AnyEndpoint): string | null => {
    const methods = methodsAt.get(ep.path)!;
    const last = ep.path.split('/').filter(Boolean).at(-1) ?? '';
    const item = isParam(last);
    const resource = item || methods.has('GET') || methods.size > 1 || hasPathsBelow(ep.path);
    if (!resource) return null;
    const collection = () => hasItemsBelow(ep.path) || (methods.has('POST') && /[^s]s$/.test(last));
    switch (ep.method) {
      case 'GET':
        return !item && collection() ? 'list' : 'get';
      case 'POST':
        return item || !methods.has('GET') || collection() ? 'create' : 'post';
      case 'PUT':
        return methods.has('PATCH') ? 'replace' : 'update';
      case 'PATCH':
        return 'update';
      case 'DELETE':
        return 'delete';
    }
  };

  const ids = new Map<AnyEndpoint, string>();
  const taken = new Map<string, AnyEndpoint>();
  const collisions: string[] = [];
  for (const ep of endpoints) {
    const verb = verbFor(ep);
    const derived = ep.operationId ?? [nameOf(ep.path), verb].filter(Boolean).join('.');
    let id = derived || ep.method.toLowerCase();
    const holder = taken.get(id);
    if (holder) {
      collisions.push(`${id}: ${holder.method} ${holder.path} and ${ep.method} ${ep.path}`);
      id = `${id}.${ep.method.toLowerCase()}`;
      for (let n = 2; taken.has(id); n++) id = `${derived}.${ep.method.toLowerCase()}${n}`;
    }
    taken.set(id, ep);
    ids.set(ep, id);
  }
  return { ids, collisions };
}
