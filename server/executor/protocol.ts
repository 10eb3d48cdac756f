import { createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import { localFetch } from './local-transport';

/** Inngest's request signature: HMAC-SHA256 of the canonical JSON body plus the timestamp, keyed by the signing key without its prefix. */
export function signBody(body: string, signingKey: string, unixSeconds: number): string {
  const key = signingKey.replace(/^signkey-\w+-/, '');
  return `t=${unixSeconds}&s=${createHmac('sha256', key).update(body + unixSeconds).digest('hex')}`;
}

export type Op = {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  opts?: Record<string, unknown> | null;
  data?: unknown;
  error?: unknown;
};

export type CallResult =
  | { kind: 'done'; output: unknown }
  | { kind: 'ops'; ops: Op[]; noRetry: boolean; retryAfter: string | null }
  | { kind: 'error'; retriable: boolean; error: Record<string, unknown>; retryAfter: string | null };

export type CallInput = {
  url: string;
  functionId: string;
  stepId: string;
  signingKey: string;
  event: Record<string, unknown>;
  steps: Record<string, unknown>;
  stack: string[];
  runId: string;
  attempt: number;
  maxAttempts: number;
  disableImmediateExecution: boolean;
  /**
   * The worker holding the run's lease. Given, the call names it as the queue item (`qi_id`, with
   * the function as `fn_id`): the SDK then runs step after step in this one call, checkpointing
   * each to the ingress, which stores a checkpoint only while that worker still holds the lease.
   */
  leaseOwner?: string | null;
  /** Aborts the call (its deadline passed: call-guard.ts). */
  signal?: AbortSignal;
};

/** The protocol version this executor speaks: the SDK's answers must say they ran it. */
export const PROTOCOL_VERSION = 2;

/**
 * One call of the app's serve endpoint, as the Inngest server makes it (protocol version 2, with
 * async checkpointing when `leaseOwner` is given). The body says version -1, "the SDK decides": the
 * SDK then takes its preferred version (2 for the pinned SDK) at the first alternative of its
 * version schema, where a `2` is reached only through failed unions that build ZodErrors, a stack
 * trace apiece (about a twentieth of a wake-up's CPU in the 10,000 wake-ups' profile). Its answer
 * names the version it ran; anything but 2 fails the run rather than be read with the wrong rules.
 */
export async function callFunction(input: CallInput): Promise<CallResult> {
  const body = canonicalize({
    version: -1,
    event: input.event,
    events: [input.event],
    steps: input.steps,
    ctx: {
      run_id: input.runId,
      ...(input.leaseOwner ? { fn_id: input.functionId, qi_id: input.leaseOwner } : {}),
      attempt: input.attempt,
      max_attempts: input.maxAttempts,
      disable_immediate_execution: input.disableImmediateExecution,
      use_api: false,
      stack: { stack: input.stack, current: input.stack.length },
    },
  })!;
  const url = new URL(input.url);
  url.searchParams.set('fnId', input.functionId);
  url.searchParams.set('stepId', input.stepId);
  let res: Response;
  try {
    res = await localFetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Inngest-Signature': signBody(body, input.signingKey, Math.floor(Date.now() / 1000)) },
      body,
      ...(input.signal ? { signal: input.signal } : {}),
    });
  } catch (e) {
    return { kind: 'error', retriable: true, error: { name: 'FetchError', message: String((e as Error).message) }, retryAfter: null };
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { message: text.slice(0, 1000) };
  }
  const ran = res.headers.get('x-inngest-req-version');
  if (ran !== null && ran !== String(PROTOCOL_VERSION)) {
    return { kind: 'error', retriable: false, error: { name: 'UnsupportedProtocolVersion', message: `The app's SDK ran protocol version ${ran}; this executor speaks version ${PROTOCOL_VERSION}` }, retryAfter: null };
  }
  const noRetry = res.headers.get('x-inngest-no-retry') === 'true';
  const retryAfter = res.headers.get('retry-after');
  if (res.status === 200) return { kind: 'done', output: parsed };
  if (res.status === 206 && Array.isArray(parsed)) return { kind: 'ops', ops: parsed as Op[], noRetry, retryAfter };
  const error = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : { message: String(parsed) };
  return { kind: 'error', retriable: !noRetry && res.status !== 400, error, retryAfter };
}
