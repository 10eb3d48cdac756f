import { z } from 'zod';
import { AppError, invalidFields } from '@/server/http/errors';
import { serveNodeCalls } from '@/server/http/node-link';
import { logger } from '@/server/logger';
import { isOpName } from './browser-ops';
import { ensureNode, runForPeer } from './follow';
import { stopThisNode } from './this-node';

/*
 * The calls other processes of the deployment make to this one (server/http/node-link.ts signs
 * and checks them): `workspace`, a browser operation for a user whose browser this process holds
 * (follow.ts), and `ping`, which tells a caller this process is alive.
 */

const ID = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const WorkspaceCall = z.object({ op: z.string(), accountId: ID, userId: ID, args: z.record(z.string(), z.unknown()) });

export async function dispatchNodeCall(route: string, body: unknown): Promise<unknown> {
  if (route === 'ping') return 'pong';
  if (route !== 'workspace') throw new AppError(404, 'not_found', `No call named ${route}`);
  const parsed = WorkspaceCall.safeParse(body);
  if (!parsed.success) throw invalidFields(parsed.error.issues.map((i) => ({ field: i.path.join('.') || 'body', problem: i.message })));
  const { op, accountId, userId, args } = parsed.data;
  if (!isOpName(op)) throw invalidFields([{ field: 'op', problem: `unknown operation ${op}` }]);
  // The sender is a process of this deployment running the same operations: their arguments are its own.
  return runForPeer(accountId, userId, op, args as never);
}

/**
 * Starts this process as a node when STEWARD_NODE_URL is set (npm start calls it before it
 * serves): the Web handler for NODE_PATH, and what to call on the way out, after the browsers
 * stopped. Null without STEWARD_NODE_URL. Throws on a URL without a usable secret.
 */
export async function startWorkspaceNode(): Promise<{ serve: (req: Request) => Promise<Response>; stop: () => Promise<void> } | null> {
  const n = await ensureNode();
  if (!n) return null;
  return {
    serve: serveNodeCalls(n.link, dispatchNodeCall, (err) => logger.error({ err }, 'a call from another Steward process failed')),
    stop: stopThisNode,
  };
}
