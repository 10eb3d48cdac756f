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
