import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpoints } from '@/server/endpoints';
import { buildOpenApi } from '@/server/http/openapi';
import { MOVES } from '@/server/tasks/transitions';

/*
 * Issue 46: every value the API documents for task statuses, dispatch and action types, audit
 * actions and user preference keys has a code path that produces or reads it. The values come
 * from the OpenAPI document itself (what a client is promised), and each is looked for in the
 * server's own source: not in the files that only declare it (db/schema, the contracts, the list
 * of audit actions), nor in tests. A value added to one of these enums and used nowhere fails here.
 *
 * Task statuses are held to more than a mention: some move of the one transition table
 * (server/tasks/transitions.ts) must lead to the status, and that move must be planned somewhere
 * (`plan(…, '<move>', …)`) outside the table itself.
 */

const ROOT = join(__dirname, '../..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** Declarations only: a value written there is promised, not produced or read. */
const DECLARES = [/^db\//, /(^|\/)contracts\.ts$/, /-contracts\.ts$/, /^server\/audit\/actions\.ts$/, /^server\/http\/openapi/];

const sources = ['server', 'inngest']
  .flatMap((d) => tsFiles(join(ROOT, d)))
  .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }))
  .filter((f) => !DECLARES.some((re) => re.test(f.path)));

/** The files (outside the declarations) that write `value` as a string literal. */
function literalUses(value: string, files = sources): string[] {
  const quoted = [`'${value}'`, `"${value}"`, `\`${value}\``];
  // A file that writes every value of an enum is a copy of its declaration (a list), not a use.
  return files.filter((f) => quoted.some((q) => f.text.includes(q))).map((f) => f.path);
}

const doc = buildOpenApi(endpoints) as unknown as {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; schema?: { enum?: string[] } }>; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
};
type Schema = { type?: string | string[]; enum?: unknown[]; properties?: Record<string, Schema>; items?: Schema };
const body = (path: string, method = 'get', status = '200') => doc.paths[path]![method]!.responses[status]!.content!['application/json']!.schema;
const strings = (s: Schema | undefined): string[] => (s?.enum ?? []).filter((v): v is string => typeof v === 'string');

/** A list a declaration file holds in full is not evidence of use: those files are left out per enum. */
function usesOutsideLists(values: string[], value: string): string[] {
  const lists = new Set(sources.filter((f) => values.every((v) => f.text.includes(`'${v}'`) || f.text.includes(`"${v}"`))).map((f) => f.path));
  return literalUses(value).filter((p) => !lists.has(p));
}

describe('the OpenAPI document’s enums have a way in', () => {
  const taskStatuses = strings(body('/tasks/{taskId}').properties!.task!.properties!.status);
  const dispatchTypes = strings(body('/portal/carts/{cartId}').properties!.cart!.properties!.dispatches!.items!.properties!.type);
  const actionTypes = strings((doc.paths['/users/{userId}/preferences/supervision/exceptions']!.post as unknown as { requestBody: { content: Record<string, { schema: Schema }> } }).requestBody.content['application/json']!.schema.properties!.appliesTo!.items);
  const auditActions = doc.paths['/audit-events']!.get!.parameters!.find((p) => p.name === 'action')!.schema!.enum!;

  it('reads the enums from the document', () => {
    expect(taskStatuses).toContain('pending');
    expect(taskStatuses).toContain('abandoned');
    expect(dispatchTypes).toContain('email');
    expect(actionTypes).toContain('email_as_user');
    expect(auditActions).toContain('member.added');
  });

  /**
   * Statuses entered only when a client asks (PUT /tasks/{taskId} with status): nothing of
   * Steward's own moves a task there, by design. Keep this list small; each entry says why.
   */
  const CLIENT_ONLY_STATUSES: Record<string, string> = {
    archived: 'the user files a task away (PUT status archived); Steward never archives on its own',
  };

  it('every task status is the target of a move that some code plans', () => {
    const planned = (move: string) =>
      sources.some((f) => {
        if (f.path === 'server/tasks/transitions.ts') return false;
        // The move named within a plan()/allowed() call (its arguments may span lines).
        const re = new RegExp(`\\b(plan|allowed)\\([^;]{0,200}?'${move}'`, 's');
        return re.test(f.text);
      });
    const missing = taskStatuses.filter((status) => {
      if (CLIENT_ONLY_STATUSES[status]) return false;
      const into = Object.entries(MOVES).filter(([name, m]) => name !== 'put_status' && (m.to as readonly string[]).includes(status));
      // `create` is insertTasks' own (pending, scheduled): it writes the status without plan().
      return !into.some(([name]) => (name === 'create' ? literalUses('scheduled').length > 0 : planned(name)));
    });
    expect(missing, 'task statuses with no move into them that any code makes').toEqual([]);
    for (const status of Object.keys(CLIENT_ONLY_STATUSES)) expect(MOVES.put_status.to as readonly string[]).toContain(status);
  });

  /** Action types consulted by nothing yet, documented as reserved in docs/decisions.md. */
  const RESERVED_ACTION_TYPES: Record<string, string> = {
    drive: 'no drive is connected yet (decisions: issue 46, first part: the drive cell is reserved)',
  };

  it('every dispatch type and action type is produced or read outside its declaration', () => {
    const unused = [...dispatchTypes.map((v) => ['dispatch', v, dispatchTypes] as const), ...actionTypes.map((v) => ['action', v, actionTypes] as const)]
      .filter(([kind, v]) => !(kind === 'action' && RESERVED_ACTION_TYPES[v]))
      .filter(([, v, all]) => usesOutsideLists(all, v).length === 0)
      .map(([kind, v]) => `${kind}:${v}`);
    expect(unused).toEqual([]);
  });

  it('every audit action is recorded somewhere', () => {
    // recordAudit(tx, actor, '<action>', …): the literal outside server/audit/actions.ts.
    const unused = auditActions.filter((a) => usesOutsideLists(auditActions, a).length === 0);
    expect(unused).toEqual([]);
  });

  it('every user preference key is read somewhere', () => {
    const prefs = body('/profile').properties!.user!.properties!.preferences!;
    const keys = new Set<string>();
    const walk = (s: Schema | undefined) => {
      for (const [k, v] of Object.entries(s?.properties ?? {})) {
        keys.add(k);
        walk(v);
        walk(v.items);
      }
    };
    walk(prefs);
    expect(keys.has('notifications')).toBe(true);
    // The defaults only declare the keys too.
    const readers = sources.filter((f) => !/^server\/user-record\/defaults\.ts$/.test(f.path));
    /**
     * Keys read without being named: each entry names the generic reader, which must still be
     * there (the exemption goes when the reader does).
     */
    const READ_BY_SHAPE: Record<string, { file: string; reads: RegExp; why: string }> = {
      desktop: { file: 'server/calendars/availability.ts', reads: /Object\.keys\(PerChannelPrefs\.shape\)/, why: 'meeting lengths are read for every channel of PerChannelPrefs' },
    };
    for (const [k, r] of Object.entries(READ_BY_SHAPE)) expect(sources.find((f) => f.path === r.file)?.text, `${k}: ${r.why}`).toMatch(r.reads);
    const unread = [...keys].filter((k) => !READ_BY_SHAPE[k] && !readers.some((f) => new RegExp(`(\\.|\\?\\.|\\{\\s*|,\\s*|')${k}\\b`).test(f.text)));
    expect(unread).toEqual([]);
  });

  it('fails for a value used nowhere', () => {
    const invented = 'status_nobody_makes';
    expect(usesOutsideLists([...taskStatuses, invented], invented)).toEqual([]);
    expect(Object.values(MOVES).some((m) => (m.to as readonly string[]).includes(invented))).toBe(false);
  });
});
