/**
 * The one error type services throw. REST (and later tRPC) map it the same way:
 * body `{ok: false, status, error_code, error, ...extra}`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export type FieldProblem = { field: string; problem: string };

export const badRequest = (message: string, extra?: Record<string, unknown>, code = 'bad_request') =>
  new AppError(400, code, message, extra);

/** 400 whose `error` names each field and its problem; `fields` carries the same list for programs. */
export const invalidFields = (problems: FieldProblem[]) =>
  new AppError(400, 'bad_request', problems.map((p) => `${p.field}: ${p.problem}`).join('; '), { fields: problems });

export const unauthorized = (message = 'Missing or invalid credential') => new AppError(401, 'unauthorized', message);
export const forbidden = (message = 'Not allowed', code = 'forbidden', extra?: Record<string, unknown>) =>
  new AppError(403, code, message, extra);
export const notFound = (what = 'Resource') => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (message: string, extra?: Record<string, unknown>, code = 'conflict') =>
  new AppError(409, code, message, extra);
export const accountBlocked = () => new AppError(403, 'account_blocked', 'This user is inactive or suspended');
export const onboardingRequired = () =>
  new AppError(
    428,
    'onboarding_required',
    'The user has not finished setup: save a timezone (PATCH /profile) and working hours (PUT /users/{userId}/preferences/scheduling), then POST /onboarding/mark-onboarded',
  );
export const killSwitchEngaged = () =>
  new AppError(423, 'KILL_SWITCH_ENGAGED', 'The account kill switch is engaged: tasks cannot be created, run or messaged');

/**
 * Refusals that the spec answers with a bare `{ok:false}` body (unknown, revoked or expired
 * API key) rather than the error shape.
 */
export class BareRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(`refused with ${status}`);
  }
}

/** What a PostgreSQL error carries (pg's DatabaseError), found directly or as a wrapper's `cause`. */
type PgError = { code: string; constraint?: string; detail?: string; column?: string; message: string };

function pgErrorOf(e: unknown): PgError | null {
  for (let cur = e, i = 0; cur && typeof cur === 'object' && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as Partial<PgError> & { severity?: unknown };
    if (typeof c.code === 'string' && /^[0-9A-Z]{5}$/.test(c.code) && c.severity !== undefined) return c as PgError;
  }
  return null;
}

/** Constraints whose column names would not tell a client what conflicts. */
const CONSTRAINT_FIELDS: Record<string, FieldProblem> = {
  users_account_email: { field: 'email', problem: 'already used by another user of the account' },
  users_account_external_id: { field: 'externalId', problem: 'already used by another user of the account' },
  identifiers_account_value: { field: 'value', problem: 'already an identifier in this account' },
  contact_addresses_user_address: { field: 'email', problem: 'already an address of another of your contacts' },
  organization_domains_verified_domain: { field: 'domain', problem: 'verified by another organization of this account' },
  organization_domains_org_domain: { field: 'domain', problem: 'already added to this organization' },
  assistants_email: { field: 'email', problem: 'already used by another assistant' },
  phone_line_requests_one_pending: { field: 'phoneLineRequest', problem: 'a pending request already exists for this user' },
  slack_apps_assistant_kind_user: { field: 'kind', problem: 'this assistant already has a Slack app of this kind' },
  prompts_account_name: { field: 'promptName', problem: 'already exists' },
  prompt_blocks_account_name: { field: 'blockName', problem: 'already exists' },
  prompt_versions_number: { field: 'versionNumber', problem: 'was just published by another request' },
  roster_entries_user_id_assistant_id_pk: { field: 'assistantId', problem: 'already on the roster' },
  accounts_hosted_domain_unique: { field: 'hostedDomain', problem: 'already used by another account' },
};

/** Columns that only scope a row to its owner say nothing about the conflict. */
const SCOPE_COLUMNS = new Set(['account_id', 'user_id', 'organization_id', 'tenant_id']);
const camel = (column: string) => column.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());

/**
 * `Key (account_id, external_id)=(…) already exists.` → the columns, never the values. For a
 * uniqueness conflict the columns that only scope the row are left out.
 */
function detailColumns(detail: string | undefined, dropScope: boolean): string[] {
  const m = /^Key \(([^)]*)\)=/.exec(detail ?? '');
  if (!m) return [];
  const cols = m[1].split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
  const named = dropScope ? cols.filter((c) => !SCOPE_COLUMNS.has(c)) : cols;
  return (named.length ? named : cols).map(camel);
}

function conflictingFields(err: PgError, problem: string): FieldProblem[] {
  const known = err.constraint ? CONSTRAINT_FIELDS[err.constraint] : undefined;
  if (known) return [known];
  const cols = detailColumns(err.detail, true);
  return cols.length ? cols.map((field) => ({ field, problem })) : [{ field: 'body', problem }];
}

const sentence = (fields: FieldProblem[]) => fields.map((p) => `${p.field}: ${p.problem}`).join('; ');

/**
 * The client-facing meaning of a PostgreSQL refusal, or null for anything else. Services
 * check what they can, but a concurrent request (two identical creates at once) or an
 * input no schema anticipated still reaches a constraint: that is a conflict or bad input,
 * never a server failure. Messages name fields, never the stored values of other rows.
 */
export function databaseRefusal(e: unknown): AppError | null {
  const err = pgErrorOf(e);
  if (!err) return null;
  const code = err.code;
  if (code === '23505' || code === '23P01') {
    const fields = conflictingFields(err, 'already exists');
    return conflict(sentence(fields), { fields });
  }
  if (code === '23503') {
    if (/is still referenced/.test(err.detail ?? '')) {
      return conflict('The resource is still in use by other records; remove those first');
    }
    const fields = detailColumns(err.detail, false).map((field) => ({ field, problem: 'names something that does not exist (or was just removed)' }));
    return fields.length ? invalidFields(fields) : badRequest('A referenced resource does not exist (or was just removed)');
  }
  if (code === '23502') return invalidFields([{ field: err.column ? camel(err.column) : 'body', problem: 'is required' }]);
  if (code === '23514') return badRequest('A value is outside what is allowed');
  if (code === '40001' || code === '40P01') return conflict('A concurrent request changed the same data; retry', {}, 'concurrent_update');
  if (code === '54000') {
    const index = /for index "([^"]+)"/.exec(err.message)?.[1];
    const field = index ? CONSTRAINT_FIELDS[index]?.field : undefined;
    return field ? invalidFields([{ field, problem: 'is too long' }]) : badRequest('A value is too long to store');
  }
  if (code === '54001') return badRequest('The input is nested too deeply');
  if (code === '22001') return badRequest('A value is too long');
  if (code === '22003') return badRequest('A number is out of range');
  if (code === '22007' || code === '22008') return badRequest('A date or time is invalid or out of range');
  if (code === '22021' || code === '22P05') return badRequest('Text contains characters that cannot be stored (NUL or invalid UTF-8)');
  // Any other data exception (invalid representation, bad escape, invalid regex…) is input.
  if (code.startsWith('22')) return badRequest('A value has an invalid format');
  return null;
}
