import { Inngest, type Middleware } from 'inngest';
import { localFetch } from '@/server/executor/local-transport';
import { stepDeadlineMiddleware } from '@/server/executor/step-deadline-middleware';
import { stepDeadlines } from './step-deadlines';

/**
 * One client for both modes. With INNGEST_BASE_URL (Inngest Cloud or `inngest start`) the SDK
 * talks to that server; otherwise to Steward's built-in executor's loopback ingress. Either
 * way the SDK runs in cloud mode, so /api/inngest verifies every call's signature.
 */
export function inngestOptions() {
  // Set by scripts/start.ts to the built-in executor's loopback ingress.
  const local = process.env.STEWARD_EXECUTOR_URL ?? 'http://127.0.0.1:8288';
  return {
    id: 'steward',
    isDev: false,
    // Several steps per call: after each step the SDK checkpoints it to the server (the built-in
    // executor's ingress stores it at once, server/executor/run-writer.ts) and runs the next one.
    checkpointing: true,
    baseUrl: process.env.INNGEST_BASE_URL ?? local,
    signingKey: process.env.INNGEST_SIGNING_KEY,
    eventKey: process.env.INNGEST_EVENT_KEY,
    // Calls to this process's own ingress are answered in-process (server/executor/local-transport.ts).
    fetch: localFetch,
    // No step runs forever: each is held to its deadline (inngest/step-deadlines.ts).
    middleware: [stepDeadlineMiddleware(stepDeadlines)] as Middleware.Class[],
  } as const;
}

export const inngest = new Inngest(inngestOptions() as ConstructorParameters<typeof Inngest>[0]);
