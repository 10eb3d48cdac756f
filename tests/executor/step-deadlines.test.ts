import { describe, expect, it } from 'vitest';
import { stepDeadlines } from '@/inngest/step-deadlines';
import { checkDeadlineTable, DEFAULT_STEP_DEADLINE_MS, durationMs, longestStepDeadlineMs, stepDeadlineMs } from '@/server/executor/step-deadlines';
import { SMTP_TIMEOUTS, TOTAL_MS } from '@/server/http/outbound-timeouts';

/** Which deadline a step gets (server/executor/step-deadlines.ts), and Steward's own table. */
describe('step deadlines', () => {
  const table = { fn: { default: '2m', steps: { send: '60s', 'send-due': '90s' } } };

  it('a step gets the longest prefix its function names, else the function default, else 5 minutes', () => {
    expect(stepDeadlineMs(table, 'fn', 'send-0')).toBe(60_000);
    expect(stepDeadlineMs(table, 'fn', 'send-due')).toBe(90_000);
    expect(stepDeadlineMs(table, 'fn', 'record-0')).toBe(120_000);
    expect(stepDeadlineMs(table, 'other', 'anything')).toBe(DEFAULT_STEP_DEADLINE_MS);
    // As the executor knows the function: registered under the app's id.
    expect(stepDeadlineMs(table, 'steward-fn', 'send-0', 'steward')).toBe(60_000);
    expect(longestStepDeadlineMs(table, 'steward-fn', 'steward')).toBe(120_000);
    expect(longestStepDeadlineMs(table, 'steward-other', 'steward')).toBe(DEFAULT_STEP_DEADLINE_MS);
  });

  it('reads durations and refuses what is not one', () => {
    expect(durationMs('1h30m')).toBe(5_400_000);
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs(250)).toBe(250);
    expect(() => durationMs('soon')).toThrow(/not a duration/);
    expect(() => checkDeadlineTable({ f: { steps: { a: '0s' } } })).toThrow(/not a positive duration/);
  });

  it("Steward's table: a send's deadline is above SMTP's and the providers' totals, a model step's above a model call's", () => {
    checkDeadlineTable(stepDeadlines);
    const send = stepDeadlineMs(stepDeadlines, 'cart-execute', 'send-0');
    expect(send).toBe(60_000);
    expect(send).toBeGreaterThan(SMTP_TIMEOUTS.totalMs);
    expect(send).toBeGreaterThan(Math.max(TOTAL_MS.mailbox, TOTAL_MS.messaging));
    expect(stepDeadlineMs(stepDeadlines, 'notice-deliver', 'send-due')).toBe(60_000);
    expect(stepDeadlineMs(stepDeadlines, 'task-run', 'model-3')).toBeGreaterThan(TOTAL_MS.model);
    expect(stepDeadlineMs(stepDeadlines, 'chat-turn', 'model-1-2')).toBeGreaterThan(TOTAL_MS.model);
  });
});
