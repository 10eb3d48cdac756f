import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { carts, mcpToolCalls, type DispatchContent } from '@/db/schema';
import { callMcpTool } from './call';
import { installedMcpSkill } from './installed';

/** What delivery needs to know of a released MCP call: done (with the server's answer), refused or failed, or unknown. */
export type SkillActionOutcome = { outcome: 'accepted'; detail: string } | { outcome: 'failed'; reason: string } | { outcome: 'unknown'; reason: string };

type Payload = { skillId?: unknown; tool?: unknown; arguments?: unknown };

const cut = (s: string, n = 500) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * Runs one released skill_action dispatch: the MCP tool it names, once, as the cart's owner
 * (the skill must still be theirs or app-wide). The caller (delivery.ts) has claimed the
 * attempt, so this is reached at most once per dispatch; the server's answer is recorded in
 * mcp_tool_calls for the dispatch (its unique key keeps one record).
 */
export async function executeSkillAction(db: Db, dispatch: { id: string; cartId: string }, content: DispatchContent): Promise<SkillActionOutcome> {
  const payload = (content.payload ?? {}) as Payload;
  if (typeof payload.skillId !== 'string' || typeof payload.tool !== 'string') return { outcome: 'failed', reason: 'The staged action does not name a skill and a tool: nothing was done' };
  const args = payload.arguments && typeof payload.arguments === 'object' && !Array.isArray(payload.arguments) ? (payload.arguments as Record<string, unknown>) : {};
  const [cart] = await db.select({ accountId: carts.accountId, userId: carts.userId, taskId: carts.taskId }).from(carts).where(eq(carts.id, dispatch.cartId));
  if (!cart) return { outcome: 'failed', reason: 'The cart no longer exists' };
  const skill = await installedMcpSkill(db, { accountId: cart.accountId, userId: cart.userId }, payload.skillId);
  if (!skill) return { outcome: 'failed', reason: 'The MCP skill is no longer installed for this user: nothing was done' };

  const result = await callMcpTool(db, skill, payload.tool, args);
  const record = (value: unknown, isError: boolean) =>
    db
      .insert(mcpToolCalls)
      .values({ accountId: cart.accountId, skillId: skill.id, toolName: payload.tool as string, taskId: cart.taskId, dispatchId: dispatch.id, input: args, result: value, isError })
      .onConflictDoNothing({ target: mcpToolCalls.dispatchId })
      // The call has happened: a record that fails to write must not turn it into "nothing was sent".
      .catch(() => undefined);
  if (!result.reached) {
    await record({ error: result.error }, true);
    return result.maybeDone ? { outcome: 'unknown', reason: `${result.error}; it may or may not have been done` } : { outcome: 'failed', reason: `${result.error}: nothing was done` };
  }
  await record({ content: result.content, structured: result.structured }, result.isError);
  if (result.isError) return { outcome: 'failed', reason: `${skill.title ?? skill.name} answered with an error: ${cut(result.content)}` };
  return { outcome: 'accepted', detail: cut(result.content) };
}

/** The recorded answer of a dispatch's MCP call, if any. */
export async function skillActionResult(db: Db, accountId: string, dispatchId: string) {
  const [row] = await db
    .select()
    .from(mcpToolCalls)
    .where(and(eq(mcpToolCalls.accountId, accountId), eq(mcpToolCalls.dispatchId, dispatchId)));
  return row ?? null;
}
