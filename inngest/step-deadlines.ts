import type { StepDeadlineTable } from '@/server/executor/step-deadlines';

/**
 * How long each step of Steward's durable functions may run (server/executor/step-deadlines.ts
 * explains the rule): a function's `default`, and by step-id prefix where a step does more. A
 * function not named here has 5 minutes a step. Each deadline is above the timeouts of the calls
 * its steps make (server/http/outbound-timeouts.ts): the call ends with its own error first, and
 * the deadline ends only a step that hangs for another reason. The SDK middleware (inngest/
 * client.ts) and the built-in executor (scripts/start.ts) both read this table.
 */
export const stepDeadlines: StepDeadlineTable = {
  // A send: SMTP's whole delivery ends within 45 s, a provider's send within 30 s.
  'cart-execute': { default: '2m', steps: { 'send-': '60s' } },
  'notice-deliver': { default: '2m', steps: { send: '60s' } },
  // Cards and approval texts for every pending cart: several sends in one step.
  'cart-notify': { default: '5m' },
  'webhook-deliver': { default: '2m' },
  // A model call may stream for up to 10 minutes; a tool (a shell command, the browser, an MCP
  // tool, a delegation) may take longer still. Coding jobs run beside the steps, not in them.
  'task-run': { default: '5m', steps: { 'model-': '12m', 'tool-': '15m' } },
  'chat-turn': { default: '5m', steps: { 'model-': '12m', 'tool-': '15m' } },
  'mailbox-sync': { default: '10m' },
  // Discovery, the calendar list and one REPORT per calendar, each within the calendar APIs' 30 s.
  'calendar-sync': { default: '10m' },
  'workflow-scheduler': { default: '10m' },
};
