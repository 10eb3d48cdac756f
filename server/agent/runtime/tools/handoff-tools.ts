import { z } from 'zod';
import { handoffActionTypes } from '@/db/schema';
import { applyChange } from '@/server/tasks/move';
import { plan } from '@/server/tasks/transitions';
import { openTaskHandoff } from '@/server/workspace/handoffs/open';
import { defineTool } from './registry';

/*
 * request_handoff (spec document 4, Tools): the user takes the browser for what only they can do
 * (sign in, a one-time code, a payment). The task waits for the user (awaiting_user_input) with
 * its follow-up alarm just after the handoff's expiry; when the handoff closes (completed,
 * deferred, declined, expired) the task wakes and this call's result carries the outcome.
 */

/** The follow-up alarm comes a little after expiry, so the expiry (which wakes the task with its outcome) goes first. */
const ALARM_AFTER_EXPIRY_MS = 5 * 60_000;

const WebUrl = z
  .string()
  .trim()
  .max(4_000)
  .refine((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, 'must be an http or https URL');

export const requestHandoff = defineTool({
  name: 'request_handoff',
  description:
    'Hand the user’s browser to the user for something only they can do: sign in (login), a one-time code (mfa), a payment, filling a form (form_fill) or other. ' +
    'targetUrl is the page they should start on (your tab is opened there); prompt tells them what to do. The run ends and the task waits; ' +
    'when they finish, defer, decline, or the handoff expires, you run again and this call’s result has the outcome. Never ask for passwords or codes in messages: use this.',
  input: z.object({
    actionType: z.enum(handoffActionTypes),
    targetUrl: WebUrl,
    prompt: z.string().trim().min(1).max(2_000),
  }),
  handler: async (db, actor, task, input, run) => {
    const h = await openTaskHandoff(db, actor, task, input, run.runId, run.now);
    const wakeAt = new Date(h.expiresAt.getTime() + ALARM_AFTER_EXPIRY_MS);
    const headline = `Handoff: ${input.prompt}`.slice(0, 200);
    await applyChange(db, task, { ...plan(task, 'wait', 'awaiting_user_input', { wakeAt, headline }, run.now), readyForReview: false }, 'wait');
    return {
      output: { handoffId: h.id, status: h.status, targetUrl: h.targetUrl, urlSource: h.urlSource, expiresAt: h.expiresAt.toISOString(), waiting: true },
      say: input.prompt,
      endsRun: true,
    };
  },
});
