import { forbidden } from '@/server/http/errors';
import type { Actor } from './actor';

/**
 * API key scopes. An empty list means no restriction (spec). Otherwise a key reaches only what
 * its scopes name:
 * - `read` / `write`: every area; `write` covers changes (POST, PUT, PATCH, DELETE) and reads.
 * - `<area>:read` / `<area>:write`: one area, named by the first segment of the endpoint's path
 *   (`memories:read` reaches GET /memories and GET /memories/{id}; `users:write` reaches
 *   PUT /users/{userId} and POST /users/{userId}/assistants).
 * GET /me answers every key: a credential may always ask what it is.
 * The areas include those of the spec not served yet, so keys made for them today stay valid.
 */
export const SCOPE_AREAS = [
  'api-keys',
  'assistants',
  'chats',
  'contacts',
  'drive-files',
  'identifiers',
  'memories',
  'oauth',
  'onboarding',
  'organizations',
  'phone-line-requests',
  'portal',
  'profile',
  'skills',
  'tasks',
  'teams',
  'users',
  'workspace',
] as const;

type Access = 'read' | 'write';
const ACCESSES: Access[] = ['read', 'write'];

export const KNOWN_SCOPES: readonly string[] = ['read', 'write', ...SCOPE_AREAS.flatMap((a) => [`${a}:read`, `${a}:write`])];
const known = new Set(KNOWN_SCOPES);
export const isKnownScope = (s: string) => known.has(s);
export const UNKNOWN_SCOPE = `is not a known scope: use read, write, or <area>:read / <area>:write with an area among ${SCOPE_AREAS.join(', ')}`;

const accessOf = (method: string): Access => (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
/** An endpoint path template's area, found once per template (this runs on every request). */
const areas = new Map<string, string>();
const areaOf = (path: string) => {
  let area = areas.get(path);
  if (area === undefined) {
    area = path.split('/')[1] ?? '';
    // Templates are few; a caller passing request paths could not grow this past a bound.
    if (areas.size >= 2000) areas.clear();
    areas.set(path, area);
  }
  return area;
};

/** Whether a list of scopes reaches `access` on `area`. */
export function grants(scopes: readonly string[], area: string, access: Access): boolean {
  if (scopes.length === 0) return true;
  const has = (s: string) => scopes.includes(s);
  return has('write') || has(`${area}:write`) || (access === 'read' && (has('read') || has(`${area}:read`)));
}

/** The kernel's check, right after authentication: 403 `insufficient_scope` naming what is missing. */
export function assertScopes(actor: Pick<Actor, 'scopes'>, method: string, endpointPath: string): void {
  if (actor.scopes.length === 0) return;
  const area = areaOf(endpointPath);
  if (area === 'me') return;
  const access = accessOf(method);
  if (grants(actor.scopes, area, access)) return;
  throw forbidden(`This key's scopes do not reach ${method} ${endpointPath}: it needs ${area}:${access} or ${access}`, 'insufficient_scope', {
    requiredScope: `${area}:${access}`,
  });
}

/**
 * What a key with scopes `requested` could reach beyond a key with scopes `held`: a key never
 * makes another that reaches more than itself. An empty `requested` list is unrestricted.
 */
export function scopesBeyond(held: readonly string[], requested: readonly string[]): string[] {
  if (held.length === 0) return [];
  if (requested.length === 0) return ['(no restriction)'];
  return requested.filter((s) => SCOPE_AREAS.some((area) => ACCESSES.some((access) => grants([s], area, access) && !grants(held, area, access))));
}
